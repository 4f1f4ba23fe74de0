// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The virtual board's driver: boots a kernel in QEMU (TCG, icount or
 * realtime clock) with the rtlab initramfs, watches the serial console for
 * the board's progress and for panics, receives the framed bundle over
 * virtio-serial, and always leaves a bundle behind: the agent's, or one the
 * host writes when the board failed to boot, panicked, hung or lost the
 * bundle on the way.
 */

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "clock.h"
#include "fsutil.h"
#include "../kernels/kernel.h"
#include "config.h"
#include "board.h"
#include "board-bundle.h"
#include "bundle.h"
#include "channel.h"
#include "initramfs.h"
#include "manifest.h"
#include "progress.h"
#include "testcase.h"
#include "watchdog.h"

#define CHANNEL_MAX_BYTES (1ULL << 30)
#define PANIC_GRACE_S 2.0	    /* console lines after "Kernel panic" */
#define POWEROFF_GRACE_S 30.0	    /* bundle received, waiting for poweroff */
#define LOG_KEEP_BYTES (16UL << 20) /* console.log, qemu.log: their end */
#define NIC_RESPAWN_S 1.0	    /* the host's iperf3 client ended: again */
#define NIC_MAX_STARTS 30	    /* ... at most this often per run */
#define NIC_STOP_GRACE_S 2.0	    /* SIGTERM, then SIGKILL */
#define NIC_CLIENT_MARGIN_S 120	    /* its -t beyond the duration */

void board_run_info_cleanup(struct board_run_info *info)
{
	if (!info)
		return;
	free(info->work_dir);
	memset(info, 0, sizeof(*info));
}

struct run {
	const struct board_def *b;
	const struct board_run_opts *o;
	struct kernel_ident id;
	char run_id[37];
	char clock[32];
	char *work;
	char *console_path, *qemu_log, *sock_path;
	char started_at[CLOCK_ISO_SIZE];
	double t0, t_qemu, t_start;
	char **qemu_argv;
	char *cmdline;
	char *testcase_name;
	/* console */
	char *con;
	size_t con_len, con_cap;
	int con_fd;
	/* channel */
	unsigned char *chan;
	size_t chan_len, chan_cap;
	double chan_first, chan_last;
	bool chan_overflow;
	int chan_errno; /* the host's read of the channel failed */
	struct watchdog wd;
	struct progress pg;
	char what[96];
	/* a load from outside the board (network mode iperf3-nic): QEMU's
	 * forwarded port, and the host's iperf3 client sending into it from
	 * the agent's RTLAB-NIC-LOAD-UP to its RTLAB-NIC-LOAD-DOWN */
	unsigned int nic_guest_port; /* 0: no NIC load */
	unsigned int nic_host_port;
	char **nic_args; /* the load's args, for the client */
	char *nic_log;	 /* the client's output */
	pid_t nic_pid;
	unsigned int nic_starts;
	double nic_ended_at; /* the client last ended */
	bool nic_answered;   /* the board's server took a test */
	bool nic_done;	     /* the measurement ended: no more clients */
	char nic_error[256];
};

/* Phase display on a terminal (lib/progress.h), nothing otherwise. */
static void phase(struct run *r, const char *name)
{
	if (r->o->progress)
		progress_phase(&r->pg, name);
}

static int append(void *bufp, size_t *len, size_t *cap, const void *data,
		  size_t n)
{
	unsigned char **buf = bufp, *nb;
	size_t ncap;

	if (*len + n + 1 > *cap) {
		ncap = *cap ? *cap : 65536;
		while (ncap < *len + n + 1)
			ncap *= 2;
		nb = realloc(*buf, ncap);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* Read what QEMU appended to the console file. */
static void console_poll(struct run *r)
{
	char buf[65536];
	ssize_t n;

	if (r->con_fd < 0) {
		r->con_fd = open(r->console_path, O_RDONLY | O_CLOEXEC);
		if (r->con_fd < 0)
			return;
	}
	while ((n = read(r->con_fd, buf, sizeof(buf))) > 0) {
		/* NULs would cut the strstr() searches short */
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		if (append(&r->con, &r->con_len, &r->con_cap, buf, n))
			break;
	}
}

static bool console_has(const struct run *r, const char *s)
{
	return r->con && strstr(r->con, s);
}

/* The line of the console that holds @s, for an error message. */
static void console_line(const struct run *r, const char *s, char *out,
			 size_t size)
{
	const char *p = r->con ? strstr(r->con, s) : NULL;

	out[0] = '\0';
	if (p)
		snprintf(out, size, "%.*s", (int)strcspn(p, "\r\n"), p);
}

static int valid_run_id(const char *s)
{
	uuid_t u;

	return strlen(s) == 36 && !uuid_parse(s, u);
}

/* The agent to put on the board: the caller's, else the usual one. */
static char *find_agent(const struct board_run_opts *o)
{
	return o->agent_path ? strdup(o->agent_path) : rtlab_agent_path();
}

static int build_cmdline(struct run *r, const struct kernel_def *k)
{
	const char *parts[4] = { r->b->cmdline, k->cmdline, r->o->extra_cmdline,
				 NULL };
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int i;

	if (!f)
		return -ENOMEM;
	/* panic=-1: reboot at once, which -no-reboot turns into an exit */
	fputs("console=ttyS0 noirqdebug panic=-1", f);
	for (i = 0; i < 3; i++)
		if (parts[i] && *parts[i])
			fprintf(f, " %s", parts[i]);
	if (fclose(f))
		return -ENOMEM;
	r->cmdline = s;
	return 0;
}

static int build_qemu_argv(struct run *r, const char *initrd)
{
	char **v = calloc(48, sizeof(*v));
	int n = 0;

	if (!v)
		return -ENOMEM;
#define A(s) (v[n++] = strdup(s))
#define AF(...) (asprintf(&v[n], __VA_ARGS__) < 0 ? (v[n] = NULL) : v[n++])
	A(r->b->qemu);
	if (r->b->clock == BOARD_CLOCK_KVM) {
		A("-accel");
		A("kvm");
		A("-cpu");
		A("host");
	} else {
		A("-accel");
		A("tcg");
		A("-cpu");
		A("max");
	}
	if (r->b->clock == BOARD_CLOCK_ICOUNT) {
		A("-icount");
		AF("shift=%u,sleep=off,align=off", r->b->icount_shift);
	}
	A("-smp");
	AF("%u", r->b->cpus);
	A("-m");
	AF("%u", r->b->memory_mb);
	A("-nodefaults");
	A("-no-reboot");
	A("-display");
	A("none");
	A("-monitor");
	A("none");
	A("-serial");
	AF("file:%s", r->console_path);
	A("-device");
	A("virtio-serial-pci");
	A("-chardev");
	AF("socket,id=rtlab0,path=%s", r->sock_path);
	A("-device");
	A("virtserialport,chardev=rtlab0,name=rtlab.0");
	if (r->nic_guest_port) {
		/* restrict=on: the board reaches nothing outside QEMU; only
		 * the forwarded port on the host's loopback reaches it */
		A("-netdev");
		AF("user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:%u-%s:%u",
		   r->nic_host_port, TC_NIC_GUEST_ADDR, r->nic_guest_port);
		A("-device");
		A("virtio-net-pci,netdev=n0");
	}
	A("-kernel");
	A(r->id.image_path);
	A("-initrd");
	A(initrd);
	A("-append");
	A(r->cmdline);
#undef A
#undef AF
	r->qemu_argv = v;
	for (int i = 0; i < n; i++)
		if (!v[i])
			return -ENOMEM;
	return 0;
}

static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static char *qemu_cmd_string(char **v)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; v[i]; i++)
		fprintf(f, i ? (strchr(v[i], ' ') ? " '%s'" : " %s") : "%s",
			v[i]);
	fclose(f);
	return s;
}

static json_t *nic_json(const struct run *r);

/* The board's own description, for every manifest. */
static json_t *board_json(struct run *r, double boot_s, double chan_s)
{
	char *cmd = qemu_cmd_string(r->qemu_argv);
	json_t *j;

	j = json_pack("{s:s, s:s, s:s, s:i, s:i, s:s?, s:s, s:s?}", "board",
		      r->b->name, "kind", "qemu", "clock", r->clock, "cpus",
		      (int)r->b->cpus, "memory_mb", (int)r->b->memory_mb,
		      "kernel_cmdline", r->cmdline, "kernel_image",
		      r->id.image_path, "qemu_command", cmd);
	free(cmd);
	if (!j)
		return NULL;
	if (boot_s >= 0)
		json_object_set_new(j, "boot_s", json_real(boot_s));
	if (r->chan_len) {
		json_object_set_new(j, "channel_bytes",
				    json_integer(r->chan_len));
		if (chan_s > 0)
			json_object_set_new(j, "channel_mib_per_s",
					    json_real(r->chan_len / chan_s /
						      1048576.0));
	}
	json_object_set_new(j, "watchdog",
			    json_pack("{s:f, s:f, s:f, s:f, s:f}", "wall_s",
				      r->wd.wall_s, "runnable_s",
				      r->wd.runnable_s, "stopped_s",
				      r->wd.stopped_s, "waiting_for_cpu_s",
				      r->wd.starved_s, "qemu_cpu_s",
				      r->wd.cpu_s));
	if (r->nic_guest_port)
		json_object_set_new(j, "nic_load", nic_json(r));
	if (r->id.package)
		json_object_set_new(j, "kernel_package",
				    json_sprintf("%s %s", r->id.package,
						 r->id.package_version));
	return j;
}

/* Put @m as manifest.json, console.log and friends into @bd, write it. */
static int finish_bundle(struct run *r, struct bundle *bd, json_t *m,
			 const char *out, struct rtlab_err *err)
{
	char *qlog = NULL;
	size_t qlen = 0;
	int ret;

	/* The logs keep their ends (how the run ended) within the limits,
	 * so a flooded console cannot cost the run its bundle. */
	ret = board_bundle_add_log(bd, m, "console.log", r->con, r->con_len,
				   LOG_KEEP_BYTES);
	if (!ret && !file_read_all(r->qemu_log, &qlog, &qlen, NULL) && qlen)
		ret = board_bundle_add_log(bd, m, "qemu.log", qlog, qlen,
					   LOG_KEEP_BYTES);
	free(qlog);
	if (ret)
		return rtlab_err_seterr(err, -ret, "bundle: %s",
					strerror(-ret));
	return board_bundle_write(bd, m, out, err);
}

/* A bundle the host writes when the board could not deliver one. */
static int fault_bundle(struct run *r, enum run_status st, const char *why,
			json_t *vboard, const char *out, struct rtlab_err *err)
{
	const struct board_fault_run f = {
		.run_id = r->run_id,
		.board = r->b->name,
		.status = st,
		.why = why,
		.testcase = r->testcase_name,
		.duration_s = r->o->duration_s,
		.kernel = &r->id,
		.clock = r->clock,
		.cmdline = r->cmdline,
		.started_at = r->started_at,
		.kind_key = "virtual_board",
		.kind_json = vboard,
	};
	struct bundle *bd = bundle_alloc();
	json_t *m = board_fault_manifest(&f);
	int ret;

	if (!bd || !m)
		ret = rtlab_err_seterr(err, ENOMEM,
				       "fault bundle: out of memory");
	else
		ret = finish_bundle(r, bd, m, out, err);
	json_decref(m);
	bundle_free(bd);
	return ret;
}

/* The agent's bundle, with console.log and the board's facts added. */
static int agent_bundle(struct run *r, const unsigned char *data, size_t size,
			json_t *vboard, const char *out, char *why,
			size_t whylen, struct rtlab_err *err)
{
	struct rtlab_err perr = { "" };
	struct bundle *bd;
	json_error_t jerr;
	json_t *m = NULL;
	int ret;

	bd = bundle_read_mem(data, size, &perr);
	if (!bd) {
		snprintf(why, whylen, "the board's bundle does not read: %s",
			 perr.msg);
		return -EBADMSG;
	}
	m = board_bundle_manifest(bd, &jerr);
	if (!m) {
		snprintf(why, whylen,
			 "the board's bundle has no readable "
			 "manifest.json%s%s",
			 jerr.text[0] ? ": " : "", jerr.text);
		ret = -EBADMSG;
		goto out;
	}
	json_object_set(m, "virtual_board", vboard);
	/* the measurement ran without the traffic it was meant to run
	 * under: not a result to compare */
	if (r->nic_error[0] &&
	    !strcmp(json_string_value(json_object_get(m, "status")) ?: "",
		    run_status_name(RUN_STATUS_COMPLETE))) {
		json_object_set_new(
			m, "status",
			json_string(run_status_name(RUN_STATUS_AGENT_ERROR)));
		json_object_set_new(m, "error",
				    json_sprintf("network load (iperf3-nic): %s",
						 r->nic_error));
	}
	ret = finish_bundle(r, bd, m, out, err);
out:
	json_decref(m);
	bundle_free(bd);
	return ret;
}

static int listen_unix(const char *path, struct rtlab_err *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return rtlab_err_seterr(err, ENAMETOOLONG,
					"%s: socket path "
					"too long",
					path);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 1) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return rtlab_err_seterr(err, e, "%s: %s", path, strerror(e));
	}
	return fd;
}

/* A board never outlives its driver (Ctrl-C, killed worker). */
static pid_t spawn_qemu(struct run *r, struct rtlab_err *err)
{
	return spawn_logged(r->qemu_argv, r->qemu_log, false, SIGKILL, err);
}

/* -- a load from outside the board (iperf3-nic) ---------------------------- */

/* A free TCP port on 127.0.0.1, as the kernel hands one out for port 0:
 * never a fixed one, so boards side by side do not collide. */
static int nic_pick_port(unsigned int *port, struct rtlab_err *err)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd, ret = 0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		ret = rtlab_err_seterr(err, errno,
				       "a free port on 127.0.0.1 for the "
				       "board's NIC: %s",
				       strerror(errno));
	else
		*port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The testcase's iperf3-nic load, if any: its port and args. */
static int nic_prepare(struct run *r, const char *testcase_path,
		       struct rtlab_err *err)
{
	struct testcase tc = { 0 };
	const struct tc_load *l;
	size_t i;
	int ret;

	ret = testcase_load(testcase_path, &tc, err);
	if (ret)
		goto out;
	l = testcase_nic_load(&tc);
	if (!l)
		goto out;
	r->nic_guest_port = l->port;
	r->nic_args = calloc(l->nargs + 1, sizeof(*r->nic_args));
	r->nic_log = path_join(r->work, "nic-client.log");
	if (!r->nic_args || !r->nic_log) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < l->nargs; i++) {
		r->nic_args[i] = strdup(l->args[i]);
		if (!r->nic_args[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = nic_pick_port(&r->nic_host_port, err);
out:
	testcase_cleanup(&tc);
	return ret;
}

static char **nic_client_argv(const struct run *r)
{
	size_t n = 0, i;
	char **v;

	while (r->nic_args && r->nic_args[n])
		n++;
	v = calloc(n + 12, sizeof(*v));
	if (!v)
		return NULL;
	i = 0;
	v[i++] = strdup("iperf3");
	v[i++] = strdup("-c");
	v[i++] = strdup("127.0.0.1");
	v[i++] = strdup("-p");
	if (asprintf(&v[i++], "%u", r->nic_host_port) < 0)
		v[i - 1] = NULL;
	v[i++] = strdup("-t");
	if (asprintf(&v[i++], "%u", r->o->duration_s + NIC_CLIENT_MARGIN_S) < 0)
		v[i - 1] = NULL;
	v[i++] = strdup("--forceflush");
	for (size_t j = 0; j < n; j++)
		v[i++] = strdup(r->nic_args[j]);
	for (size_t j = 0; j < i; j++)
		if (!v[j]) {
			while (i)
				free(v[--i]);
			free(v);
			return NULL;
		}
	return v;
}

static void nic_spawn(struct run *r)
{
	char **v = nic_client_argv(r);
	struct rtlab_err err = { "" };
	pid_t pid;

	if (!v) {
		snprintf(r->nic_error, sizeof(r->nic_error),
			 "the host's iperf3 client: out of memory");
		r->nic_done = true;
		return;
	}
	pid = spawn_logged(v, r->nic_log, true, SIGKILL, &err);
	free_argv(v);
	if (pid < 0) {
		snprintf(r->nic_error, sizeof(r->nic_error),
			 "the host's iperf3 client: %s", err.msg);
		r->nic_done = true;
		return;
	}
	r->nic_pid = pid;
	r->nic_starts++;
}

/* Did the board's server answer: an interval line ("... sec ...") in
 * the client's output, which iperf3 prints only once a test runs. */
static bool nic_log_answered(const struct run *r, char *last, size_t size)
{
	char *text = NULL, *p, *end;
	size_t len = 0;
	bool yes;

	last[0] = '\0';
	if (file_read_all(r->nic_log, &text, &len, NULL) || !len) {
		free(text);
		return false;
	}
	yes = strstr(text, " sec ") != NULL;
	end = text + len;
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	*end = '\0';
	p = strrchr(text, '\n');
	snprintf(last, size, "%s", p ? p + 1 : text);
	free(text);
	return yes;
}

static void nic_stop(struct run *r)
{
	double t0 = clock_mono_s();
	int st;

	if (r->nic_pid <= 0)
		return;
	kill(-r->nic_pid, SIGTERM);
	while (waitpid(r->nic_pid, &st, WNOHANG) == 0) {
		if (clock_mono_s() - t0 > NIC_STOP_GRACE_S) {
			kill(-r->nic_pid, SIGKILL);
			while (waitpid(r->nic_pid, &st, 0) < 0 &&
			       errno == EINTR)
				;
			break;
		}
		usleep(20000);
	}
	r->nic_pid = 0;
}

/* Once per watch: start, restart and stop the host's client as the
 * board's console says. */
static void nic_tick(struct run *r, double t)
{
	char last[200];
	int st;

	if (!r->nic_guest_port || r->nic_done)
		return;
	if (console_has(r, "RTLAB-NIC-LOAD-DOWN") ||
	    console_has(r, "RTLAB-AGENT-END")) {
		nic_stop(r);
		r->nic_done = true;
		r->nic_answered = nic_log_answered(r, last, sizeof(last));
		if (!r->nic_starts && console_has(r, "RTLAB-NIC-LOAD-UP"))
			snprintf(r->nic_error, sizeof(r->nic_error),
				 "the host's iperf3 client never started");
		else if (r->nic_starts && !r->nic_answered)
			snprintf(r->nic_error, sizeof(r->nic_error),
				 "the board's iperf3 server (%s:%u, host port "
				 "127.0.0.1:%u) never answered the host's "
				 "client in %u tries: %.120s",
				 TC_NIC_GUEST_ADDR, r->nic_guest_port,
				 r->nic_host_port, r->nic_starts, last);
		return;
	}
	if (!console_has(r, "RTLAB-NIC-LOAD-UP"))
		return;
	if (r->nic_pid > 0 && waitpid(r->nic_pid, &st, WNOHANG) == r->nic_pid) {
		r->nic_pid = 0;
		r->nic_ended_at = t;
	}
	if (r->nic_pid > 0 || t - r->nic_ended_at < NIC_RESPAWN_S)
		return;
	if (r->nic_starts >= NIC_MAX_STARTS) {
		/* keeps its answer for the error at the end */
		return;
	}
	nic_spawn(r);
}

/* The host's side of the NIC load, for the manifest's virtual_board. */
static json_t *nic_json(const struct run *r)
{
	char *cmd = NULL, **v = nic_client_argv(r);
	json_t *j;

	if (v)
		cmd = qemu_cmd_string(v);
	free_argv(v);
	j = json_pack("{s:s, s:s, s:s, s:i, s:s, s:i, s:s?, s:i, s:b, s:s?}",
		      "device", "virtio-net-pci", "netdev", "user,restrict=on",
		      "host_address", "127.0.0.1", "host_port",
		      (int)r->nic_host_port, "guest_address", TC_NIC_GUEST_ADDR,
		      "guest_port", (int)r->nic_guest_port, "client", cmd,
		      "client_starts", (int)r->nic_starts, "answered",
		      r->nic_answered, "error",
		      r->nic_error[0] ? r->nic_error : NULL);
	free(cmd);
	return j;
}

/* What is left on the channel once QEMU is gone, and the console's end. */
static void drain(struct run *r, int cfd)
{
	unsigned char buf[1 << 16];
	ssize_t n;

	while (cfd >= 0 && (n = read(cfd, buf, sizeof(buf))) > 0) {
		r->chan_last = clock_mono_s();
		if (append(&r->chan, &r->chan_len, &r->chan_cap, buf, n))
			break;
	}
	if (cfd >= 0)
		close(cfd);
	console_poll(r);
}

/* Boot, measure, receive: returns how the watch ended.  The boot and hang
 * timeouts count the time QEMU could run (boards/watchdog.h). */
static enum board_watch supervise(struct run *r, pid_t pid, int lfd,
				  unsigned int boot_to, unsigned int hang_to,
				  int *wstatus)
{
	double panic_at = 0, done_at = 0, start_g = 0, t, wall_to;
	enum board_watch oc;
	bool running = true;
	struct pollfd pfd;
	int cfd = -1, dummy;
	size_t off, size;
	unsigned char buf[1 << 16];
	ssize_t n;

	wall_to = (double)WATCHDOG_WALL_FACTOR * (boot_to + hang_to);
	watchdog_init(&r->wd, pid, r->t_qemu);
	phase(r, "boot");
	while (running) {
		/* the listening socket until QEMU connects, then the port */
		pfd.fd = cfd >= 0 ? cfd : cfd == -1 ? lfd : -1;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, 100) > 0) {
			if (cfd < 0) {
				cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			} else {
				n = read(cfd, buf, sizeof(buf));
				if (n > 0) {
					t = clock_mono_s();
					if (!r->chan_len)
						r->chan_first = t;
					r->chan_last = t;
					if (r->chan_len + n >
						    CHANNEL_MAX_BYTES ||
					    append(&r->chan, &r->chan_len,
						   &r->chan_cap, buf, n))
						r->chan_overflow = true;
				} else if (n == 0 || (errno != EINTR &&
						      errno != EAGAIN)) {
					/* EOF is the guest's doing; a read
					 * error is the host's */
					if (n < 0)
						r->chan_errno = errno;
					close(cfd);
					cfd = -2; /* stop polling */
				}
			}
		}
		console_poll(r);
		t = clock_mono_s();
		watchdog_sample(&r->wd, t);
		if (!r->t_start && console_has(r, "RTLAB-AGENT-START")) {
			r->t_start = t;
			start_g = r->wd.runnable_s;
			phase(r, "measure");
		}
		nic_tick(r, t);
		if (!panic_at && console_has(r, "Kernel panic"))
			panic_at = t;
		if (!done_at && r->chan_len && !r->chan_overflow &&
		    channel_parse(r->chan, r->chan_len, &off, &size, NULL) !=
			    -EAGAIN) {
			done_at = t;
			phase(r, "hand-over");
		}
		running = false;
		if (waitpid(pid, wstatus, WNOHANG) == pid) {
			drain(r, cfd);
			return BOARD_WATCH_EXITED;
		}
		if (panic_at && t - panic_at > PANIC_GRACE_S)
			oc = BOARD_WATCH_PANIC;
		else if (!r->t_start && r->wd.runnable_s > boot_to)
			oc = BOARD_WATCH_BOOT_TIMEOUT;
		else if (r->t_start && !done_at &&
			 r->wd.runnable_s - start_g > hang_to)
			oc = BOARD_WATCH_HANG;
		else if (done_at && t - done_at > POWEROFF_GRACE_S)
			oc = BOARD_WATCH_POWEROFF_TIMEOUT;
		else if (!done_at && t - r->t_qemu > wall_to)
			oc = BOARD_WATCH_STARVED;
		else
			running = true;
		if (r->o->progress)
			progress_update(&r->pg);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &dummy, 0) < 0 && errno == EINTR)
		;
	*wstatus = dummy;
	drain(r, cfd);
	return oc;
}

/* The NIC of a load from outside; prefix as TC_NIC_GUEST_PREFIX. */
static const char *const nic_modules[] = { "virtio_net", NULL };
#define NIC_PREFIX_STR "24"

static int prepare(struct run *r, const struct kernel_def *k,
		   const char *testcase_path, struct rtlab_err *err)
{
	struct initramfs_job job = { 0 };
	char *cache = NULL, *init = NULL, *agent = NULL, *base = NULL;
	char *kpart = NULL, *jobp = NULL, *initrd = NULL;
	const char *parts[4];
	bool built = false;
	int ret;

	ret = initramfs_check_testcase(testcase_path, err);
	if (ret)
		return ret;
	phase(r, "fetch");
	ret = kernel_fetch(k, NULL, &r->id, err);
	if (ret)
		return ret;
	phase(r, "initramfs");
	cache = initramfs_cache_dir();
	init = path_join(r->b->dir, "guest-init.sh");
	agent = find_agent(r->o);
	jobp = path_join(r->work, "job.cpio.gz");
	initrd = path_join(r->work, "initrd.img");
	if (!cache || !init || !jobp || !initrd) {
		ret = -ENOMEM;
		goto out;
	}
	ret = initramfs_base(cache, init, agent, &base, &built, err);
	if (ret)
		goto out;
	ret = nic_prepare(r, testcase_path, err);
	if (ret)
		goto out;
	/* virtio_net brings net_failover and failover (modules.dep) */
	ret = initramfs_kernel(cache, &r->id,
			       r->nic_guest_port ? nic_modules : NULL, &kpart,
			       err);
	if (ret)
		goto out;
	job.run_id = r->run_id;
	job.board = r->b->name;
	job.clock = r->clock;
	job.kernel_name = r->id.name;
	job.kernel_tree = r->id.tree;
	job.duration_s = r->o->duration_s;
	job.interval_us = r->b->interval_us;
	job.testcase_path = testcase_path;
	job.release = r->id.release;
	if (r->nic_guest_port)
		job.nic_addr = TC_NIC_GUEST_ADDR "/" NIC_PREFIX_STR;
	job.fault = r->o->fault == BOARD_FAULT_PANIC   ? "panic" :
		    r->o->fault == BOARD_FAULT_HANG    ? "hang" :
		    r->o->fault == BOARD_FAULT_CORRUPT ? "corrupt" :
							 NULL;
	ret = initramfs_job(jobp, &job, err);
	if (ret)
		goto out;
	parts[0] = base;
	parts[1] = kpart;
	parts[2] = jobp;
	/* e.g. a module for the job (rtlab calibrate's injector) */
	parts[3] = r->o->extra_archive;
	ret = initramfs_concat(initrd, parts, parts[3] ? 4 : 3, err);
	if (ret)
		goto out;
	if (!agent)
		fprintf(stderr, "rtlab: no rtlab-agent found: the board runs "
				"cyclictest alone\n");
	ret = build_cmdline(r, k) ?: build_qemu_argv(r, initrd);
out:
	free(cache);
	free(init);
	free(agent);
	free(base);
	free(kpart);
	free(jobp);
	free(initrd);
	return ret;
}

/* The last line QEMU wrote to qemu.log, "" when none. */
static void qemu_log_line(const struct run *r, char *out, size_t size)
{
	char *text = NULL;
	size_t len = 0, end, start;

	out[0] = '\0';
	if (file_read_all(r->qemu_log, &text, &len, NULL) || !len) {
		free(text);
		return;
	}
	end = len;
	while (end && (text[end - 1] == '\n' || text[end - 1] == '\r'))
		end--;
	start = end;
	while (start && text[start - 1] != '\n')
		start--;
	snprintf(out, size, "%.*s", (int)(end - start), text + start);
	free(text);
}

/* No run: what the host did wrong, for the job's record. */
static int infra_error(const struct run *r, enum board_result res, int wst,
		       unsigned int timeouts_s, struct rtlab_err *err)
{
	const struct watchdog *w = &r->wd;
	char qlog[160];

	qemu_log_line(r, qlog, sizeof(qlog));
	switch (res) {
	case BOARD_RESULT_INFRA_STARVED:
		return rtlab_err_seterr(
			err, ETIMEDOUT,
			"infrastructure error: board %s: the host let QEMU "
			"run %.0f s of %.0f s (stopped %.0f s, waiting for a "
			"CPU %.0f s), past the limit of %u x %u s; QEMU "
			"killed",
			r->b->name, w->runnable_s, w->wall_s, w->stopped_s,
			w->starved_s, WATCHDOG_WALL_FACTOR, timeouts_s);
	case BOARD_RESULT_INFRA_QEMU_KILLED:
		return rtlab_err_seterr(
			err, EIO,
			"infrastructure error: board %s: QEMU was killed by "
			"signal %d (%s) after %.1f s%s%s",
			r->b->name, WTERMSIG(wst), strsignal(WTERMSIG(wst)),
			w->wall_s, qlog[0] ? ": " : "", qlog);
	case BOARD_RESULT_INFRA_QEMU_FAILED:
		return rtlab_err_seterr(
			err, EIO,
			"infrastructure error: board %s: QEMU exited with "
			"status %d%s%s",
			r->b->name, WEXITSTATUS(wst), qlog[0] ? ": " : "",
			qlog);
	default:
		return rtlab_err_seterr(
			err, EPIPE,
			"infrastructure error: board %s: reading the bundle "
			"channel failed: %s",
			r->b->name, strerror(r->chan_errno));
	}
}

int board_run(const struct board_def *b, const struct kernel_def *k,
	      const char *testcase_path, const struct board_run_opts *o,
	      const char *out_bundle, struct board_run_info *info,
	      struct rtlab_err *err)
{
	struct run r = { .b = b, .o = o, .con_fd = -1 };
	struct rtlab_err cerr = { "" };
	char why[RTLAB_ERR_LEN + 128], line[200], tmpl[PATH_MAX];
	unsigned int boot_to, hang_to;
	struct board_end end = { 0 };
	enum board_result res;
	enum board_watch watch;
	enum run_status st;
	json_t *vb = NULL;
	size_t off = 0, size = 0;
	double boot_s = -1, chan_s = 0;
	int ret, lfd = -1, wst = 0, cret;
	pid_t pid;

	r.t0 = clock_mono_s();
	snprintf(r.what, sizeof(r.what), "%s %s", b->name, k->name);
	if (o->progress)
		progress_init(&r.pg, r.what, 0);
	clock_iso_utc(r.started_at, time(NULL));
	if (info)
		memset(info, 0, sizeof(*info));
	if (!o->duration_s)
		return rtlab_err_set(err,
				     "board %s: duration must be at least "
				     "1 s",
				     b->name);
	if (o->run_id && !valid_run_id(o->run_id))
		return rtlab_err_set(err, "run id '%s': expected a UUID",
				     o->run_id);
	board_run_id(r.run_id, o->run_id);
	if (access(testcase_path, R_OK) < 0)
		return rtlab_err_seterr(err, errno, "%s: testcase: %s",
					testcase_path, strerror(errno));
	r.testcase_name = board_testcase_name(testcase_path);
	if (b->clock == BOARD_CLOCK_ICOUNT)
		snprintf(r.clock, sizeof(r.clock), "icount:%u",
			 b->icount_shift);
	else
		snprintf(r.clock, sizeof(r.clock), "%s",
			 board_clock_name(b->clock));
	if (o->work_dir) {
		ret = mkdir_p(o->work_dir, 0755, err);
		r.work = strdup(o->work_dir);
	} else {
		snprintf(tmpl, sizeof(tmpl), "%s/rtlab-board-XXXXXX",
			 getenv("TMPDIR") && *getenv("TMPDIR") ?
				 getenv("TMPDIR") :
				 "/tmp");
		ret = mkdtemp(tmpl) ?
			      0 :
			      rtlab_err_seterr(err, errno, "mkdtemp: %s",
					       strerror(errno));
		r.work = strdup(tmpl);
	}
	if (ret)
		goto out;
	r.console_path = path_join(r.work, "console.log");
	r.qemu_log = path_join(r.work, "qemu.log");
	r.sock_path = path_join(r.work, "channel.sock");
	if (!r.work || !r.console_path || !r.qemu_log || !r.sock_path ||
	    !r.testcase_name) {
		ret = -ENOMEM;
		goto out;
	}
	unlink(r.console_path);
	unlink(r.sock_path);
	ret = prepare(&r, k, testcase_path, err);
	if (ret)
		goto out;
	lfd = listen_unix(r.sock_path, err);
	if (lfd < 0) {
		ret = lfd;
		goto out;
	}
	boot_to = o->boot_timeout_s ? o->boot_timeout_s : b->boot_timeout_s;
	hang_to = o->hang_timeout_s ?
			  o->hang_timeout_s :
			  b->hang_margin_s + o->duration_s * b->slowdown;
	r.t_qemu = clock_mono_s();
	pid = spawn_qemu(&r, err);
	if (pid < 0) {
		ret = pid;
		goto out;
	}
	watch = supervise(&r, pid, lfd, boot_to, hang_to, &wst);
	/* the board is gone: its sender too, whatever the board said */
	nic_stop(&r);
	if (r.nic_error[0])
		fprintf(stderr,
			"rtlab: board %s: network load (iperf3-nic): %s\n",
			b->name, r.nic_error);
	if (r.t_start)
		boot_s = r.t_start - r.t_qemu;
	if (r.chan_len > 1)
		chan_s = r.chan_last - r.chan_first;
	vb = board_json(&r, boot_s, chan_s);
	if (!vb) {
		ret = -ENOMEM;
		goto out;
	}

	/* What became of the run (boards/watchdog.h, the table). */
	cret = r.chan_overflow ?
		       rtlab_err_seterr(&cerr, EFBIG,
					"channel: "
					"more than %llu bytes",
					CHANNEL_MAX_BYTES) :
		       channel_parse(r.chan, r.chan_len, &off, &size, &cerr);
	snprintf(why, sizeof(why), "%s%s",
		 r.t_start && !r.chan_len ? "the board sent no bundle: " : "",
		 cerr.msg);
	if (cret == -EAGAIN)
		snprintf(why, sizeof(why),
			 "channel: transfer cut short: %zu "
			 "of %zu bytes arrived",
			 r.chan_len - off, size);
	end.watch = watch;
	end.qemu_signalled = watch == BOARD_WATCH_EXITED && WIFSIGNALED(wst);
	end.qemu_exit = watch == BOARD_WATCH_EXITED && WIFEXITED(wst) ?
				WEXITSTATUS(wst) :
				0;
	end.agent_started = r.t_start > 0;
	end.panic_seen = console_has(&r, "Kernel panic");
	end.bundle_ok = !cret;
	end.channel_broken = r.chan_errno != 0;
	res = board_end_classify(&end);
	if (board_result_is_infra(res)) {
		if (info)
			info->infra = true;
		ret = infra_error(&r, res, wst, boot_to + hang_to, err);
		goto out;
	}
	st = RUN_STATUS_AGENT_ERROR;
	if (res == BOARD_RESULT_BUNDLE) {
		ret = agent_bundle(&r, r.chan + off, size, vb, out_bundle, why,
				   sizeof(why), err);
		if (ret != -EBADMSG)
			goto done; /* delivered, or a host failure */
	} else if (res == BOARD_RESULT_PANIC ||
		   res == BOARD_RESULT_BOOT_PANIC) {
		console_line(&r, "Kernel panic", line, sizeof(line));
		st = r.t_start ? RUN_STATUS_PANIC : RUN_STATUS_BOOT_FAILED;
		snprintf(why, sizeof(why), "%s: %s",
			 r.t_start ? "kernel panic while measuring" :
				     "kernel panic before the agent started",
			 line);
	} else if (res == BOARD_RESULT_BOOT_TIMEOUT) {
		st = RUN_STATUS_BOOT_FAILED;
		snprintf(why, sizeof(why),
			 console_has(&r, "Linux version") ?
				 "no agent start within %u s of QEMU running (the "
				 "kernel printed, userspace never reported)" :
				 "no kernel output within %u s of QEMU running",
			 boot_to);
	} else if (res == BOARD_RESULT_HANG) {
		st = RUN_STATUS_HANG;
		snprintf(why, sizeof(why),
			 "board silent for %u s of QEMU running after the "
			 "agent started (duration %u s); QEMU killed",
			 hang_to, o->duration_s);
	} else if (res == BOARD_RESULT_BOOT_EXIT) {
		st = RUN_STATUS_BOOT_FAILED;
		snprintf(why, sizeof(why),
			 "the guest stopped QEMU (power off or reboot) before "
			 "the agent started%s",
			 console_has(&r, "Linux version") ?
				 "" :
				 ", without kernel output (see qemu.log)");
	}
	/* else agent_error with the channel's complaint in @why */
	ret = fault_bundle(&r, st, why, vb, out_bundle, err);
done:
	if (!ret && info)
		board_bundle_status(out_bundle, info);
out:
	if (o->progress)
		progress_done(&r.pg);
	if (info) {
		info->boot_s = boot_s;
		info->total_s = clock_mono_s() - r.t0;
		info->channel_bytes = r.chan_len;
		info->channel_s = chan_s;
		info->runnable_s = r.wd.runnable_s;
		info->stopped_s = r.wd.stopped_s;
		info->starved_s = r.wd.starved_s;
		info->qemu_cpu_s = r.wd.cpu_s;
		if (o->keep || o->work_dir)
			info->work_dir = r.work ? strdup(r.work) : NULL;
	}
	if (lfd >= 0)
		close(lfd);
	if (r.con_fd >= 0)
		close(r.con_fd);
	if (r.work && !o->keep && !o->work_dir)
		rmtree(r.work);
	json_decref(vb);
	free_argv(r.qemu_argv);
	free(r.cmdline);
	free(r.con);
	free(r.chan);
	nic_stop(&r);
	free_argv(r.nic_args);
	free(r.nic_log);
	free(r.testcase_name);
	free(r.console_path);
	free(r.qemu_log);
	free(r.sock_path);
	free(r.work);
	kernel_ident_cleanup(&r.id);
	return ret;
}

/* -- the qemu kind ---------------------------------------------------------- */

/* A kernel definition, the board's definition, tools the initramfs can
 * carry. */
static int qemu_check_job(const char *board, const char *definition_json,
			  const char *kernel, const char *testcase_path,
			  char **stored_kernel, struct rtlab_err *err)
{
	struct board_def *bd;
	char *defname;

	if (!strcmp(kernel, BOARD_KERNEL_HOST))
		return rtlab_err_set(err,
				     "--kernel " BOARD_KERNEL_HOST
				     ": board '%s' is a virtual board: "
				     "expected a kernel definition "
				     "(kernels/NAME.yaml)",
				     board);
	defname = board_definition_name(board, definition_json, err);
	if (!defname)
		return -EINVAL;
	bd = board_def_find(defname, err);
	if (!bd) {
		rtlab_err_prefix(err,
				 "--board %s: board definition '%s' "
				 "(the \"board\" field of the registered "
				 "definition, else the board's name)",
				 board, defname);
		free(defname);
		return -EINVAL;
	}
	board_def_free(bd);
	free(defname);
	return board_check_kernel_job(kernel, testcase_path, NULL,
				      stored_kernel, err);
}

static int qemu_open(struct board *b, const char *definition_json,
		     const char *def_name, struct rtlab_err *err)
{
	char *defname =
		def_name ? strdup(def_name) :
			   board_definition_name(b->name, definition_json, err);
	char *name;

	if (!defname)
		return -EINVAL;
	b->def = board_def_find(defname, err);
	free(defname);
	if (!b->def)
		return -EINVAL;
	/* The bundle names a registered board (whose token uploads it),
	 * not the definition it boots; an unregistered one is its
	 * definition. */
	name = strdup(def_name ? b->def->name : b->name);
	if (!name)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	free(def_name ? b->name : b->def->name);
	if (def_name)
		b->name = name;
	else
		b->def->name = name;
	b->k = kernel_def_find(b->kernel, err);
	return b->k ? 0 : -EINVAL;
}

static int qemu_prepare(struct board *b, struct rtlab_err *err)
{
	return board_fetch_kernel(b, err);
}

static int qemu_run(struct board *b, const struct board_job *job,
		    const char *out, struct board_run_info *info,
		    struct rtlab_err *err)
{
	struct board_run_opts o = { 0 };

	o.duration_s = job->duration_s;
	o.run_id = job->run_id;
	o.agent_path = b->agent;
	o.extra_archive = job->extra_archive;
	return board_run(b->def, b->k, job->testcase_path, &o, out, info, err);
}

const struct board_kind board_kind_qemu = {
	.name = "qemu",
	.boots_kernel = true,
	.host_nic = true,
	.check_job = qemu_check_job,
	.open = qemu_open,
	.prepare = qemu_prepare,
	.run = qemu_run,
};
