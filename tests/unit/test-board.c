// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The board interface without booting anything: kinds are found by name,
 * only the kinds with a driver are offered to workers, a registered
 * definition names the YAML a board boots, and a job for a kind without a
 * driver fails with a message saying so (not a crash).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../boards/board.h"

static void test_kinds(void)
{
	const char *const *all = board_kind_names(false);
	const char *const *driven = board_kind_names(true);
	size_t n;

	CHECK(board_kind_find("local") == &board_kind_local,
	      "kind: local is found");
	CHECK(board_kind_find("qemu") == &board_kind_qemu,
	      "kind: qemu is found");
	CHECK(board_kind_find("lava") && board_kind_find("ssh"),
	      "kind: lava and ssh are registrable");
	CHECK(!board_kind_find("sundial") && !board_kind_find(NULL),
	      "kind: an unknown name is not");
	CHECK(board_kind_has_driver(&board_kind_local) &&
		      board_kind_has_driver(&board_kind_qemu) &&
		      board_kind_has_driver(&board_kind_ssh) &&
		      board_kind_has_driver(&board_kind_lava),
	      "kind: local, qemu, ssh and lava have drivers");
	CHECK(board_kind_find("ssh") == &board_kind_ssh, "kind: ssh is found");
	CHECK(board_kind_find("lava") == &board_kind_lava,
	      "kind: lava is found");
	CHECK(!board_kind_local.boots_kernel && board_kind_qemu.boots_kernel &&
		      board_kind_ssh.boots_kernel,
	      "kind: qemu and ssh boot a kernel, local runs the host's");
	for (n = 0; all[n]; n++)
		;
	CHECK_INT(n, 4, "kind names: four kinds");
	for (n = 0; driven[n]; n++)
		;
	CHECK_INT(n, 4, "kind names with a driver: four");
	CHECK(n == 4 && !strcmp(driven[0], "local") &&
		      !strcmp(driven[1], "qemu") && !strcmp(driven[2], "ssh") &&
		      !strcmp(driven[3], "lava"),
	      "kind names with a driver: local, qemu, ssh, lava");
}

static void test_definition_name(void)
{
	struct rtlab_err err = { "" };
	char *s;

	s = board_definition_name("vb1", "{\"board\": \"qemu-icount\"}", &err);
	CHECK_STR(s, "qemu-icount", "definition name: the 'board' field");
	free(s);
	s = board_definition_name("vb1", NULL, &err);
	CHECK_STR(s, "vb1", "definition name: else the board's name");
	free(s);
	s = board_definition_name("vb1", "{\"board\": 3}", &err);
	CHECK(!s && strstr(err.msg, "definition field 'board'"),
	      "definition name: a non-string is refused (%s)", err.msg);
	s = board_definition_name("vb1", "[1]", &err);
	CHECK(!s && strstr(err.msg, "expected a JSON object"),
	      "definition name: a non-object is refused (%s)", err.msg);
}

static void test_open_refused(void)
{
	struct rtlab_err err = { "" };
	struct board *b;

	b = board_open("ssh", "rpi4", NULL, "debian-rt", &err);
	CHECK(!b && strstr(err.msg, "board rpi4") &&
		      strstr(err.msg, "rpi4.yaml"),
	      "ssh: a board without its definition does not open (%s)",
	      err.msg);
	b = board_open("sundial", "x", NULL, "host", &err);
	CHECK(!b && strstr(err.msg, "unknown board kind 'sundial'"),
	      "unknown kind: refused (%s)", err.msg);
}

static void test_local(void)
{
	struct rtlab_err err = { "" };
	char *kernel = NULL;
	struct board *b;
	int ret;

	ret = board_check_job("local", "l1", NULL, "debian-rt", "/nonexistent",
			      &kernel, &err);
	CHECK(ret < 0 && strstr(err.msg, "expected --kernel host"),
	      "local: a kernel definition is refused (%s)", err.msg);
	b = board_open_def("local", NULL, &err);
	CHECK(b && b->kind == &board_kind_local && !strcmp(b->kernel, "host"),
	      "local: opens by name, running the host's kernel");
	board_close(b);
	b = board_open_def("local", "debian-rt", &err);
	CHECK(!b && strstr(err.msg, "runs this host's kernel"),
	      "local: --kernel is refused (%s)", err.msg);
	board_close(NULL);
}

/* A load the host sends through a virtual NIC is refused on the kinds
 * that have none, before anything is queued. */
static void test_nic_load_refused(void)
{
	const char *top = getenv("RTLAB_TOP");
	struct rtlab_err err = { "" };
	char nic[4096], plain[4096];
	char *kernel = NULL;
	int ret;

	snprintf(nic, sizeof(nic), "%s/testcases/cyclictest-network-nic.yaml",
		 top ? top : ".");
	snprintf(plain, sizeof(plain), "%s/testcases/cyclictest-network.yaml",
		 top ? top : ".");
	ret = board_refuse_nic_load("ssh", "rpi4", nic, &err);
	CHECK(ret < 0 && strstr(err.msg, "iperf3-nic") &&
		      strstr(err.msg, "'rpi4' (kind ssh)"),
	      "an iperf3-nic testcase is refused on an ssh board (%s)",
	      err.msg);
	CHECK_INT(board_refuse_nic_load("lava", "bbb", plain, &err), 0,
		  "... a loopback network testcase is not");
	ret = board_check_job("local", "l1", NULL, "host", nic, &kernel, &err);
	CHECK(ret < 0 && strstr(err.msg, "(kind local)"),
	      "a local board's job check refuses it (%s)", err.msg);
	free(kernel);
}

int main(void)
{
	test_kinds();
	test_definition_name();
	test_open_refused();
	test_local();
	test_nic_load_refused();
	return check_exit();
}
