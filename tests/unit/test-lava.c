// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lava board kind without LAVA: its definition, the job definition it
 * renders, the job log it reads, the bundle in base64 between markers and
 * the outcome table.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "manifest.h"
#include "../../boards/lava.h"

static void test_conf(void)
{
	struct rtlab_err err = { "" };
	struct lava_conf c;

	CHECK(!lava_conf_parse("b", "{\"device\": \"/d.yaml\"}", &c, &err) &&
		      !c.server && !strcmp(c.mode, "dispatcher") &&
		      !strcmp(c.device_type, "qemu") &&
		      !strcmp(c.lava_run, "lava-run"),
	      "conf: a device makes a dispatcher board, qemu by default");
	lava_conf_cleanup(&c);
	lava_conf_cleanup(&c);
	CHECK(!lava_conf_parse("b", "{\"url\": \"http://l\", \"token\": \"t\"}",
			       &c, &err) &&
		      c.server,
	      "conf: a url makes a server board");
	lava_conf_cleanup(&c);
	CHECK(!lava_conf_parse("b",
			       "{\"device\": \"d\", \"upload_url\": "
			       "\"http://10.0.2.2:8470\"}",
			       &c, &err) &&
		      !strcmp(c.upload_url, "http://10.0.2.2:8470"),
	      "conf: an upload_url");
	lava_conf_cleanup(&c);
	CHECK(lava_conf_parse("b",
			      "{\"device\": \"d\", \"upload_url\": "
			      "\"10.0.2.2:8470\"}",
			      &c, &err) &&
		      strstr(err.msg, "'upload_url'"),
	      "conf: an upload_url without a scheme (%s)", err.msg);
	CHECK(lava_conf_parse("b",
			      "{\"url\": \"http://l\", \"token\": \"t\", "
			      "\"notify_url\": \"http://r\"}",
			      &c, &err) &&
		      strstr(err.msg, "'notify_token'"),
	      "conf: a notify_url without its token (%s)", err.msg);
	CHECK(lava_conf_parse("b",
			      "{\"device\": \"d\", \"notify_url\": "
			      "\"http://r\", \"notify_token\": \"n\"}",
			      &c, &err) &&
		      strstr(err.msg, "mode server"),
	      "conf: a dispatcher is never called back (%s)", err.msg);
	CHECK(lava_conf_parse("b", "{\"url\": \"http://l\"}", &c, &err) &&
		      strstr(err.msg, "'token'"),
	      "conf: a server without a token (%s)", err.msg);
	CHECK(lava_conf_parse("b", NULL, &c, &err) &&
		      strstr(err.msg, "needs 'device'"),
	      "conf: nothing at all (%s)", err.msg);
	CHECK(lava_conf_parse("b", "{\"device\": \"d\", \"mode\": \"x\"}", &c,
			      &err) &&
		      strstr(err.msg, "'mode'"),
	      "conf: an unknown mode (%s)", err.msg);
	CHECK(lava_conf_parse("b", "{\"device\": \"d\", \"boot_timeout_s\": 1}",
			      &c, &err) &&
		      strstr(err.msg, "boot_timeout_s"),
	      "conf: a timeout out of range (%s)", err.msg);
}

static void test_render(void)
{
	struct lava_job_params p = { "qemu",
				     "rtlab x",
				     "/k/bzImage",
				     "/w/initrd.cpio.gz",
				     "console=ttyS0",
				     60,
				     200,
				     NULL,
				     NULL };
	char *text = lava_job_render(&p);
	json_error_t jerr;
	json_t *j = text ? json_loads(text, 0, &jerr) : NULL;
	json_t *acts = json_object_get(j, "actions");
	json_t *rd = json_object_get(
		json_object_get(json_object_get(json_array_get(acts, 0),
						"deploy"),
				"images"),
		"ramdisk");

	CHECK(json_is_object(j) && json_array_size(acts) == 3,
	      "render: deploy, boot, test");
	CHECK_STR(json_string_value(json_object_get(j, "device_type")), "qemu",
		  "render: the device type");
	CHECK_STR(json_string_value(json_object_get(rd, "url")),
		  "file:///w/initrd.cpio.gz", "render: the ramdisk's url");
	CHECK_STR(json_string_value(json_object_get(rd, "format")), "cpio.newc",
		  "render: a newc ramdisk LAVA repacks");
	CHECK(text && strstr(text, "-append \\\"console=ttyS0\\\""),
	      "render: rtlab's kernel command line");
	CHECK(text && strstr(text, "\"/init run\""),
	      "render: the test shell runs the agent");
	CHECK(!json_object_get(j, "notify"), "render: no callback by default");
	json_decref(j);
	free(text);
	p.notify_url = "http://r:1/api/v1/lava/notify";
	p.notify_token = "rtlab-notify";
	text = lava_job_render(&p);
	j = text ? json_loads(text, 0, &jerr) : NULL;
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(json_object_get(j, "notify"),
					  "criteria"),
			  "status")),
		  "finished", "render: LAVA calls back once finished");
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(json_object_get(j, "notify"),
					  "callback"),
			  "url")),
		  "http://r:1/api/v1/lava/notify",
		  "render: ... rtlab's endpoint");
	CHECK(text && strstr(text, "\"content-type\": \"json\"") &&
		      strstr(text, "\"token\": \"rtlab-notify\""),
	      "render: ... with JSON and the token");
	json_decref(j);
	free(text);
}

/* A log line of lava-run's. */
static void line(FILE *f, const char *lvl, const char *msg)
{
	json_t *e = json_pack("{s:s, s:s, s:s}", "dt", "2026-01-01T00:00:00",
			      "lvl", lvl, "msg", msg);
	char *s = json_dumps(e, 0);

	fprintf(f, "%s\n", s);
	free(s);
	json_decref(e);
}

static void test_log(void)
{
	struct rtlab_err err = { "" };
	const char payload[] = "the bundle, 31 bytes of payload";
	char *text = NULL, hdr[160], hex[65];
	unsigned char *data;
	struct lava_log l;
	size_t len = 0, size;
	FILE *f = open_memstream(&text, &len);

	sha256_hex(payload, 31, hex);
	snprintf(hdr, sizeof(hdr), "RTLAB-B64-BEGIN v1 31 %s", hex);
	line(f, "info", "start: 0 validate");
	line(f, "target", "RTLAB-AGENT-START run=x");
	line(f, "target", hdr);
	line(f, "target", "dGhlIGJ1bmRsZSwgMzEgYnl0ZXM");
	line(f, "target", "[   48.8] sched: RT throttling activated");
	line(f, "target", "gb2YgcGF5bG9hZA==");
	line(f, "target", "RTLAB-B64-END v1");
	fprintf(f, "- {\"dt\": \"x\", \"lvl\": \"results\", \"msg\": "
		   "{\"case\": \"job\", \"definition\": \"lava\", "
		   "\"result\": \"fail\", \"error_type\": \"Test\", "
		   "\"error_msg\": \"oops\"}}\nnot a log line\n");
	fclose(f);
	CHECK(!lava_log_parse(text, len, &l), "log: parses");
	CHECK(l.console && strstr(l.console, "RTLAB-AGENT-START") &&
		      !strstr(l.console, "validate"),
	      "log: the console holds the target's lines only");
	CHECK_STR(l.result, "fail", "log: the job's result");
	CHECK_STR(l.error_type, "Test",
		  "log: ... its error type, '- ' items too");
	CHECK(!lava_bundle_extract(l.console, &data, &size, &err) &&
		      size == 31 && !memcmp(data, payload, 31),
	      "bundle: decoded past a kernel line (%s)", err.msg);
	free(data);
	CHECK(lava_outcome_classify(&l, true) == LAVA_OUTCOME_BUNDLE,
	      "outcome: a bundle");
	lava_log_cleanup(&l);
	free(text);

	CHECK(lava_bundle_extract("RTLAB-B64-BEGIN v1 31 abc\nAAAA\n", &data,
				  &size, &err) == -EBADMSG,
	      "bundle: a bad begin line");
	snprintf(hdr, sizeof(hdr),
		 "RTLAB-B64-BEGIN v1 31 %s\ndGhlIGJ1bmRsZSwgMzEgYnl0ZXM\n",
		 hex);
	CHECK(lava_bundle_extract(hdr, &data, &size, &err) == -EBADMSG &&
		      strstr(err.msg, "cut short"),
	      "bundle: cut short (%s)", err.msg);
	CHECK(lava_bundle_extract("no bundle", &data, &size, &err) == -ENOENT,
	      "bundle: none");
}

static void test_outcome(void)
{
	struct lava_log l = { 0 };

	l.console = (char *)"Linux version 6.1\nKernel panic - not syncing";
	CHECK(lava_outcome_classify(&l, true) == LAVA_OUTCOME_BOOT_FAILED,
	      "outcome: a panic before the agent is boot_failed");
	l.console = (char *)"RTLAB-AGENT-START\nKernel panic - not syncing";
	CHECK(lava_outcome_classify(&l, true) == LAVA_OUTCOME_PANIC,
	      "outcome: a panic while measuring");
	l.console = (char *)"RTLAB-AGENT-START\n";
	CHECK(lava_outcome_classify(&l, true) == LAVA_OUTCOME_HANG,
	      "outcome: the agent never ended");
	l.console = (char *)"RTLAB-AGENT-START\nRTLAB-AGENT-END rc=1\n";
	CHECK(lava_outcome_classify(&l, true) == LAVA_OUTCOME_AGENT_ERROR,
	      "outcome: no bundle");
	l.console = (char *)"RTLAB-AGENT-START\nRTLAB-AGENT-END rc=0\n"
			    "RTLAB-UPLOADED v1 run=x size=1 sha256=y\n";
	CHECK(lava_outcome_classify(&l, true) == LAVA_OUTCOME_UPLOADED,
	      "outcome: the board uploaded its bundle");
	l.console = (char *)"Linux version 6.1\n";
	CHECK(lava_outcome_classify(&l, true) == LAVA_OUTCOME_BOOT_FAILED,
	      "outcome: no prompt, no agent");
	l.error_type = (char *)"Infrastructure";
	CHECK(lava_outcome_classify(&l, true) == LAVA_OUTCOME_INFRA,
	      "outcome: LAVA's infrastructure error");
	l.error_type = (char *)"Job";
	l.console = (char *)"";
	CHECK(lava_outcome_classify(&l, true) == LAVA_OUTCOME_INFRA,
	      "outcome: a job LAVA refused before the board printed");
	l.error_type = NULL;
	CHECK(lava_outcome_classify(&l, false) == LAVA_OUTCOME_INFRA,
	      "outcome: a job that never ran");
}

int main(void)
{
	test_conf();
	test_render();
	test_log();
	test_outcome();
	return check_exit();
}
