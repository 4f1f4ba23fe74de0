// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lava board kind: a run is a LAVA job.  rtlab renders the job
 * definition (deploy the candidate kernel and rtlab's initramfs to tmpfs,
 * boot to a shell, run the agent in a test shell, timeouts from the
 * testcase), has LAVA run it, reads LAVA's job log and brings the result
 * bundle back from it (base64 between markers on the console), unless the
 * board, told where it reaches rtlab's server (upload_url), uploaded it
 * there itself: then the run is stored already and the host's logs are
 * handed over for it (BOARD_RUN_STORED).  LAVA's outcome becomes the
 * run's state: an infrastructure error is no run (retried), a boot that
 * never reaches the prompt is boot_failed, a panic on the console is
 * panic; the job log is the run's console.log.
 *
 * Two ways to run the job: "dispatcher" runs Debian's lava-run on this
 * host with a device configuration file (a single-host lab), "server"
 * submits it to a lava-server over its REST API (boards/lava-rest.c).
 */

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "clock.h"
#include "config.h"
#include "fsutil.h"
#include "manifest.h"
#include "bundle.h"
#include "testcase.h"
#include "board.h"
#include "board-bundle.h"
#include "initramfs.h"
#include "lava.h"

#define LAVA_PROMPT "rtlab-lava# "
#define LAVA_DEPLOY_S 600
#define LOG_KEEP_BYTES (16UL << 20)
#define B64_BEGIN "RTLAB-B64-BEGIN v1 "
#define B64_END "RTLAB-B64-END v1"
#define UPLOADED "RTLAB-UPLOADED v1 "
#define API_RUNS "/api/v1/runs"

struct lava_board {
	struct lava_conf conf;
};

void lava_conf_cleanup(struct lava_conf *c)
{
	if (!c)
		return;
	free(c->mode);
	free(c->device);
	free(c->device_type);
	free(c->lava_run);
	free(c->url);
	free(c->token);
	free(c->upload_url);
	free(c->notify_url);
	free(c->notify_token);
	memset(c, 0, sizeof(*c));
}

static int conf_str(json_t *root, const char *key, char **out,
		    const char *board, struct rtlab_err *err)
{
	json_t *v = json_object_get(root, key);

	if (!v)
		return 0;
	if (!json_is_string(v) || !*json_string_value(v))
		return rtlab_err_set(err,
				     "board %s: definition field '%s': "
				     "expected a non-empty string",
				     board, key);
	*out = strdup(json_string_value(v));
	return *out ? 0 : rtlab_err_seterr(err, ENOMEM, "out of memory");
}

static int conf_uint(json_t *root, const char *key, unsigned int *out,
		     unsigned int min, unsigned int max, const char *board,
		     struct rtlab_err *err)
{
	json_t *v = json_object_get(root, key);

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return rtlab_err_set(err,
				     "board %s: definition field '%s': "
				     "expected an integer %u..%u",
				     board, key, min, max);
	*out = json_integer_value(v);
	return 0;
}

int lava_conf_parse(const char *board, const char *definition_json,
		    struct lava_conf *c, struct rtlab_err *err)
{
	static const char *const keys[] = { "mode",
					    "device",
					    "device_type",
					    "lava_run",
					    "url",
					    "token",
					    "boot_timeout_s",
					    "hang_margin_s",
					    "slowdown",
					    "interval_us",
					    "upload_url",
					    "notify_url",
					    "notify_token",
					    NULL };
	json_error_t jerr;
	const char *key;
	json_t *root, *v;
	size_t i;
	int ret = -EINVAL;

	memset(c, 0, sizeof(*c));
	c->boot_timeout_s = 300;
	c->hang_margin_s = 120;
	c->slowdown = 20;
	root = json_loads(definition_json ? definition_json : "{}", 0, &jerr);
	if (!json_is_object(root)) {
		rtlab_err_set(err,
			      "board %s: definition: expected a JSON object",
			      board);
		goto out;
	}
	json_object_foreach(root, key, v) {
		for (i = 0; keys[i] && strcmp(keys[i], key); i++)
			;
		if (!keys[i]) {
			rtlab_err_set(err,
				      "board %s: definition: unknown field '%s' "
				      "(a lava board takes mode, device, "
				      "device_type, lava_run, url, token, "
				      "boot_timeout_s, hang_margin_s, slowdown, "
				      "interval_us, upload_url, notify_url, "
				      "notify_token)",
				      board, key);
			goto out;
		}
	}
	if (conf_str(root, "mode", &c->mode, board, err) ||
	    conf_str(root, "device", &c->device, board, err) ||
	    conf_str(root, "device_type", &c->device_type, board, err) ||
	    conf_str(root, "lava_run", &c->lava_run, board, err) ||
	    conf_str(root, "url", &c->url, board, err) ||
	    conf_str(root, "token", &c->token, board, err) ||
	    conf_str(root, "upload_url", &c->upload_url, board, err) ||
	    conf_str(root, "notify_url", &c->notify_url, board, err) ||
	    conf_str(root, "notify_token", &c->notify_token, board, err) ||
	    conf_uint(root, "boot_timeout_s", &c->boot_timeout_s, 10, 3600,
		      board, err) ||
	    conf_uint(root, "hang_margin_s", &c->hang_margin_s, 10, 86400,
		      board, err) ||
	    conf_uint(root, "slowdown", &c->slowdown, 1, 1000, board, err) ||
	    conf_uint(root, "interval_us", &c->interval_us, TC_MIN_INTERVAL_US,
		      TC_MAX_INTERVAL_US, board, err))
		goto out;
	if (c->upload_url && strncmp(c->upload_url, "http://", 7) &&
	    strncmp(c->upload_url, "https://", 8)) {
		rtlab_err_set(err,
			      "board %s: definition field 'upload_url': "
			      "expected rtlab's server as the board reaches "
			      "it, http://HOST:PORT or https://...",
			      board);
		goto out;
	}
	if (c->upload_url && strpbrk(c->upload_url, "'\\ \t\r\n")) {
		rtlab_err_set(err,
			      "board %s: definition field 'upload_url': no "
			      "quotes, backslashes or spaces",
			      board);
		goto out;
	}
	if (c->notify_url && strncmp(c->notify_url, "http://", 7) &&
	    strncmp(c->notify_url, "https://", 8)) {
		rtlab_err_set(err,
			      "board %s: definition field 'notify_url': "
			      "expected rtlab's server as lava-server "
			      "reaches it, http://HOST:PORT or https://...",
			      board);
		goto out;
	}
	if (!c->notify_url != !c->notify_token) {
		rtlab_err_set(err,
			      "board %s: definition: 'notify_url' and "
			      "'notify_token' go together (LAVA's callback "
			      "needs an rtlab token)",
			      board);
		goto out;
	}
	if (!c->mode)
		c->mode = strdup(c->url ? "server" : "dispatcher");
	if (!c->device_type)
		c->device_type = strdup("qemu");
	if (!c->lava_run)
		c->lava_run = strdup("lava-run");
	if (!c->mode || !c->device_type || !c->lava_run) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	if (!strcmp(c->mode, "dispatcher")) {
		c->server = false;
		if (!c->device) {
			rtlab_err_set(err,
				      "board %s: definition: mode dispatcher "
				      "needs 'device', the LAVA device "
				      "configuration (YAML) lava-run boots",
				      board);
			goto out;
		}
		if (c->notify_url) {
			rtlab_err_set(err,
				      "board %s: definition field "
				      "'notify_url': only a lava-server calls "
				      "back (mode server)",
				      board);
			goto out;
		}
	} else if (!strcmp(c->mode, "server")) {
		c->server = true;
		if (!c->url || !c->token) {
			rtlab_err_set(err,
				      "board %s: definition: mode server needs "
				      "'url' (the lava-server, e.g. "
				      "http://lava.example:80) and 'token' "
				      "(an API token of a LAVA user)",
				      board);
			goto out;
		}
	} else {
		rtlab_err_set(err,
			      "board %s: definition field 'mode': expected "
			      "dispatcher or server, got '%s'",
			      board, c->mode);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		lava_conf_cleanup(c);
	json_decref(root);
	return ret;
}

/* -- the job definition ----------------------------------------------------- */

static json_t *secs(unsigned int s)
{
	return json_pack("{s:i}", "seconds", (int)s);
}

char *lava_job_render(const struct lava_job_params *p)
{
	json_t *job, *test, *images;
	char *kurl = NULL, *rurl = NULL, *karg = NULL, *text = NULL;
	unsigned int job_s =
		LAVA_DEPLOY_S + p->boot_timeout_s + p->test_timeout_s + 120;

	if (asprintf(&kurl, "file://%s", p->kernel_path) < 0)
		kurl = NULL;
	if (asprintf(&rurl, "file://%s", p->ramdisk_path) < 0)
		rurl = NULL;
	/* the kernel command line is ours, not the device's */
	if (asprintf(&karg, "-kernel {kernel} -append \"%s\"", p->cmdline) < 0)
		karg = NULL;
	if (!kurl || !rurl || !karg)
		goto out;
	images = json_pack("{s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:{s:b}}}",
			   "kernel", "image_arg", karg, "url", kurl, "ramdisk",
			   "image_arg", "-initrd {ramdisk}", "url", rurl,
			   "format", "cpio.newc", "compression", "gz",
			   "overlays", "lava", 1);
	test = json_pack("{s:o, s:[{s:s, s:s, s:s, s:{s:{s:s, s:s, s:s}, "
			 "s:{s:[s]}}}]}",
			 "timeout", secs(p->test_timeout_s), "definitions",
			 "from", "inline", "name", "rtlab", "path",
			 "inline/rtlab.yaml", "repository", "metadata",
			 "format", "Lava-Test Test Definition 1.0", "name",
			 "rtlab", "description",
			 "rtlab-agent: the testcase, bundle on the console",
			 "run", "steps", "/init run");
	/* JSON is YAML: LAVA reads it as its YAML job definition */
	job = json_pack("{s:s, s:s, s:s, s:s, s:{s:s}, s:{s:o, s:o, s:o}, "
			"s:[{s:{s:o, s:s, s:s, s:o}}, "
			"{s:{s:o, s:s, s:s, s:[s]}}, {s:o}]}",
			"device_type", p->device_type, "job_name", p->job_name,
			"priority", "medium", "visibility", "public", "context",
			"arch", "amd64", "timeouts", "job", secs(job_s),
			"action", secs(job_s), "connection", secs(120),
			"actions", "deploy", "timeout", secs(LAVA_DEPLOY_S),
			"to", "tmpfs", "os", "oe", "images", images, "boot",
			"timeout", secs(p->boot_timeout_s), "method", "qemu",
			"media", "tmpfs", "prompts", LAVA_PROMPT, "test", test);
	/* LAVA calls rtlab's server back when the job is finished */
	if (job && p->notify_url &&
	    json_object_set_new(job, "notify",
				json_pack("{s:{s:s}, s:{s:s, s:s, s:s, s:s, s:s}}",
					  "criteria", "status", "finished",
					  "callback", "url", p->notify_url,
					  "method", "POST", "token",
					  p->notify_token, "content-type",
					  "json", "dataset", "minimal"))) {
		json_decref(job);
		job = NULL;
	}
	if (job)
		text = json_dumps(job, JSON_INDENT(2));
	json_decref(job);
out:
	free(kurl);
	free(rurl);
	free(karg);
	return text;
}

/* -- the job log -------------------------------------------------------------- */

void lava_log_cleanup(struct lava_log *l)
{
	if (!l)
		return;
	free(l->console);
	free(l->error_msg);
	free(l->error_type);
	free(l->result);
	memset(l, 0, sizeof(*l));
}

static int buf_add(char **buf, size_t *len, size_t *cap, const char *s,
		   size_t n)
{
	char *nb;
	size_t ncap;

	if (*len + n + 2 > *cap) {
		ncap = *cap ? *cap * 2 : 65536;
		while (ncap < *len + n + 2)
			ncap *= 2;
		nb = realloc(*buf, ncap);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

static void set_str(char **dst, const char *s)
{
	if (!s)
		return;
	free(*dst);
	*dst = strdup(s);
}

/*
 * One log entry: a mapping {dt, lvl, msg}, written as JSON; a line that is
 * not one is skipped.
 */
static int log_entry(struct lava_log *l, json_t *e, size_t *cap)
{
	const char *lvl = json_string_value(json_object_get(e, "lvl"));
	json_t *msg = json_object_get(e, "msg");
	const char *s;
	int ret = 0;

	if (!lvl)
		return 0;
	if (!strcmp(lvl, "target") && json_is_string(msg)) {
		s = json_string_value(msg);
		ret = buf_add(&l->console, &l->console_len, cap, s, strlen(s));
		if (!ret)
			ret = buf_add(&l->console, &l->console_len, cap, "\n",
				      1);
	} else if (!strcmp(lvl, "results") && json_is_object(msg)) {
		const char *def =
			json_string_value(json_object_get(msg, "definition"));
		const char *c = json_string_value(json_object_get(msg, "case"));
		const char *r =
			json_string_value(json_object_get(msg, "result"));
		/* lava-run puts the error in the entry, a server's logs may
		 * keep it under "extra" */
		json_t *x = json_object_get(msg, "error_type") ?
				    msg :
				    json_object_get(msg, "extra");

		if (def && c && !strcmp(def, "lava") && !strcmp(c, "job")) {
			set_str(&l->result, r);
			set_str(&l->error_msg,
				json_string_value(json_object_get(x,
								  "error_msg")));
			set_str(&l->error_type,
				json_string_value(json_object_get(x,
								  "error_type")));
		}
		if (def && c && r && !strcmp(def, "lava") &&
		    !strcmp(r, "fail") && strstr(c, "boot") && !l->boot_failed)
			l->boot_failed = true;
	} else if (!strcmp(lvl, "error") && json_is_string(msg) &&
		   !l->error_msg) {
		set_str(&l->error_msg, json_string_value(msg));
	}
	return ret;
}

int lava_log_parse(const char *text, size_t len, struct lava_log *l)
{
	const char *p = text, *end = text + len, *nl, *q;
	size_t cap = 0;
	json_error_t jerr;
	json_t *e;
	int ret = 0;

	memset(l, 0, sizeof(*l));
	while (p < end && !ret) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		/* lava-run: one JSON object per line; lava-server: the same
		 * as YAML list items, "- {...}" */
		q = p;
		if (nl - q > 2 && q[0] == '-' && q[1] == ' ')
			q += 2;
		if (q < nl && *q == '{') {
			e = json_loadb(q, nl - q, 0, &jerr);
			if (json_is_object(e))
				ret = log_entry(l, e, &cap);
			json_decref(e);
		}
		p = nl + 1;
	}
	if (!ret && !l->console)
		ret = buf_add(&l->console, &l->console_len, &cap, "", 0);
	if (ret)
		lava_log_cleanup(l);
	return ret;
}

static int b64_val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int lava_bundle_extract(const char *console, unsigned char **data, size_t *size,
			struct rtlab_err *err)
{
	const char *b = strstr(console, B64_BEGIN), *e, *p, *q, *nl;
	unsigned long long want;
	unsigned char *out;
	unsigned int acc = 0;
	char sum[65], hex[65];
	size_t n = 0;
	int bits = 0, v;

	*data = NULL;
	*size = 0;
	if (!b)
		return rtlab_err_seterr(err, ENOENT,
					"no bundle in the job log (no "
					"RTLAB-B64-BEGIN line)");
	if (sscanf(b + strlen(B64_BEGIN), "%llu %64s", &want, sum) != 2 ||
	    strlen(sum) != 64 || want > (1ULL << 30))
		return rtlab_err_seterr(err, EBADMSG,
					"bundle in the job log: a bad "
					"RTLAB-B64-BEGIN line");
	p = strchr(b, '\n');
	e = p ? strstr(p, B64_END) : NULL;
	if (!e)
		return rtlab_err_seterr(err, EBADMSG,
					"bundle in the job log: cut short (no "
					"RTLAB-B64-END line)");
	out = malloc(want + 4);
	if (!out)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	/* Kernel messages may land between the lines: a line of base64
	 * characters only is the bundle's, any other is skipped. */
	for (q = p + 1; q < e; q = nl + 1) {
		const char *t;
		bool pure = true;

		nl = memchr(q, '\n', e - q);
		if (!nl)
			nl = e;
		for (t = q; t < nl && pure; t++)
			pure = b64_val((unsigned char)*t) >= 0 || *t == '=' ||
			       *t == '\r';
		for (t = q; pure && t < nl; t++) {
			v = b64_val((unsigned char)*t);
			if (v < 0)
				continue;
			acc = (acc << 6) | v;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				if (n < want + 3)
					out[n] = (acc >> bits) & 0xff;
				n++;
			}
		}
	}
	if (n != want) {
		free(out);
		return rtlab_err_seterr(err, EBADMSG,
					"bundle in the job log: %zu bytes "
					"decoded, %llu announced",
					n, want);
	}
	sha256_hex(out, n, hex);
	if (strcmp(hex, sum)) {
		free(out);
		return rtlab_err_seterr(err, EBADMSG,
					"bundle in the job log: sha256 "
					"mismatch");
	}
	*data = out;
	*size = n;
	return 0;
}

/* -- the outcome -------------------------------------------------------------- */

enum lava_outcome lava_outcome_classify(const struct lava_log *l, bool job_ran)
{
	const char *c = l->console ? l->console : "";
	bool started = strstr(c, "RTLAB-AGENT-START");

	if (strstr(c, UPLOADED))
		return LAVA_OUTCOME_UPLOADED;
	if (strstr(c, B64_BEGIN))
		return LAVA_OUTCOME_BUNDLE;
	if (strstr(c, "Kernel panic"))
		return started ? LAVA_OUTCOME_PANIC : LAVA_OUTCOME_BOOT_FAILED;
	/* LAVA's own failures, the device's or a bug: no run */
	/* a job LAVA refused ran nothing on the board */
	if (!job_ran ||
	    (!*c && l->error_type && !strcmp(l->error_type, "Job")) ||
	    (l->error_type && (!strcmp(l->error_type, "Infrastructure") ||
			       !strcmp(l->error_type, "Configuration") ||
			       !strcmp(l->error_type, "Bug") ||
			       !strcmp(l->error_type, "Canceled"))))
		return LAVA_OUTCOME_INFRA;
	if (!started)
		return LAVA_OUTCOME_BOOT_FAILED;
	if (!strstr(c, "RTLAB-AGENT-END"))
		return LAVA_OUTCOME_HANG;
	return LAVA_OUTCOME_AGENT_ERROR;
}

/* -- the initramfs ------------------------------------------------------------ */

/* LAVA unpacks one gzip'd newc archive, adds its overlay, repacks it:
 * the parts become one. */
static int merge_archives(const char *out, const char *const *parts, size_t n,
			  struct rtlab_err *err)
{
	struct archive *w = archive_write_new(), *r = NULL;
	struct archive_entry *e;
	char buf[65536];
	la_ssize_t got;
	size_t i;
	int ret = 0, rc;

	if (!w || archive_write_set_format_cpio_newc(w) ||
	    archive_write_add_filter_gzip(w) ||
	    /* ~90 MB per run: speed over size (LAVA repacks it anyway) */
	    archive_write_set_filter_option(w, "gzip", "compression-level",
					    "1") ||
	    archive_write_open_filename(w, out)) {
		ret = rtlab_err_seterr(err, EIO, "%s: %s", out,
				       w ? archive_error_string(w) :
					   "out of memory");
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		r = archive_read_new();
		if (!r) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			break;
		}
		archive_read_support_filter_all(r);
		archive_read_support_format_cpio(r);
		if (archive_read_open_filename(r, parts[i], 65536)) {
			ret = rtlab_err_seterr(err, EIO, "%s: %s", parts[i],
					       archive_error_string(r));
			break;
		}
		while (!ret &&
		       (rc = archive_read_next_header(r, &e)) == ARCHIVE_OK) {
			if (archive_write_header(w, e)) {
				ret = rtlab_err_seterr(err, EIO, "%s: %s", out,
						       archive_error_string(w));
				break;
			}
			while ((got = archive_read_data(r, buf, sizeof(buf))) >
			       0)
				if (archive_write_data(w, buf, got) != got) {
					ret = rtlab_err_seterr(
						err, EIO, "%s: %s", out,
						archive_error_string(w));
					break;
				}
			if (got < 0 && !ret)
				ret = rtlab_err_seterr(err, EIO, "%s: %s",
						       parts[i],
						       archive_error_string(r));
		}
		if (!ret && rc != ARCHIVE_EOF)
			ret = rtlab_err_seterr(err, EIO, "%s: %s", parts[i],
					       archive_error_string(r));
		archive_read_free(r);
		r = NULL;
	}
	if (archive_write_close(w) && !ret)
		ret = rtlab_err_seterr(err, EIO, "%s: %s", out,
				       archive_error_string(w));
out:
	archive_read_free(r);
	archive_write_free(w);
	return ret;
}

/* -- the kind ------------------------------------------------------------------ */

static struct lava_board *lb(struct board *b)
{
	return b->kind_data;
}

/* What this host needs to run the job: lava-run, as root, a device file. */
static int check_host(const char *board, const struct lava_conf *c,
		      struct rtlab_err *err)
{
	char *p;

	if (c->server)
		return 0;
	p = path_which(c->lava_run);
	if (!p)
		return rtlab_err_seterr(err, ENOENT,
					"board %s: %s not found: install "
					"Debian's lava-dispatcher",
					board, c->lava_run);
	free(p);
	if (geteuid())
		return rtlab_err_seterr(err, EPERM,
					"board %s: lava-run must run as root",
					board);
	if (access(c->device, R_OK))
		return rtlab_err_seterr(err, errno,
					"board %s: device configuration %s: %s",
					board, c->device, strerror(errno));
	return 0;
}

static int lava_check_job(const char *board, const char *definition_json,
			  const char *kernel, const char *testcase_path,
			  char **stored_kernel, struct rtlab_err *err)
{
	struct lava_conf c;
	int ret;

	if (!strcmp(kernel, BOARD_KERNEL_HOST))
		return rtlab_err_set(err,
				     "--kernel " BOARD_KERNEL_HOST
				     ": board '%s' is a LAVA board: it boots "
				     "a kernel definition (kernels/NAME.yaml)",
				     board);
	ret = lava_conf_parse(board, definition_json, &c, err);
	if (ret)
		return ret;
	lava_conf_cleanup(&c);
	return board_check_kernel_job(kernel, testcase_path, NULL,
				      stored_kernel, err);
}

static int lava_open(struct board *b, const char *definition_json,
		     const char *def_name, struct rtlab_err *err)
{
	struct lava_board *l = calloc(1, sizeof(*l));

	(void)def_name;
	if (!l)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	b->kind_data = l;
	if (lava_conf_parse(b->name, definition_json, &l->conf, err))
		return -EINVAL;
	b->k = kernel_def_find(b->kernel, err);
	return b->k ? 0 : -EINVAL;
}

static int lava_prepare(struct board *b, struct rtlab_err *err)
{
	return check_host(b->name, &lb(b)->conf, err) ?:
		       board_fetch_kernel(b, err);
}

static void lava_release(struct board *b)
{
	struct lava_board *l = b->kind_data;

	if (!l)
		return;
	lava_conf_cleanup(&l->conf);
	free(l);
	b->kind_data = NULL;
}

struct lrun {
	struct board *b;
	const struct board_job *job;
	char run_id[37];
	char started_at[CLOCK_ISO_SIZE];
	char *work, *initrd, *job_path, *cmdline;
	char *testcase_name;
	long lava_job_id;
	double t0;
	char *upload_url; /* URL/api/v1/runs when the board uploads */
	const char *via;  /* how the bundle came back: "upload", "log" */
	bool notified;	  /* LAVA's callback ended the wait */
};

static const char *const nic_modules[] = { "virtio_net", NULL };

static int build_initrd(struct lrun *r, struct rtlab_err *err)
{
	struct initramfs_job j = { 0 };
	char *cache = initramfs_cache_dir(), *init = NULL;
	char *agent = NULL, *base = NULL, *kpart = NULL, *jobp = NULL;
	const char *parts[4];
	bool built;
	int ret = -ENOMEM;

	init = rtlab_data_path("boards/lava-init.sh");
	agent = r->b->agent ? strdup(r->b->agent) : rtlab_agent_path();
	jobp = path_join(r->work, "job.cpio.gz");
	r->initrd = path_join(r->work, "initrd.cpio.gz");
	if (!cache || !init || !jobp || !r->initrd)
		goto out;
	if (!agent) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "board %s: rtlab-agent not found",
				       r->b->name);
		goto out;
	}
	ret = initramfs_base(cache, init, agent, &base, &built, err);
	if (ret)
		goto out;
	/* a board that uploads needs its NIC (QEMU's virtio-net) */
	ret = initramfs_kernel(cache, &r->b->id,
			       r->upload_url ? nic_modules : NULL, &kpart, err);
	if (ret)
		goto out;
	j.run_id = r->run_id;
	j.board = r->b->name;
	j.clock = "lava";
	j.kernel_name = r->b->id.name;
	j.kernel_tree = r->b->id.tree;
	j.duration_s = r->job->duration_s;
	j.interval_us = lb(r->b)->conf.interval_us;
	j.testcase_path = r->job->testcase_path;
	j.release = r->b->id.release;
	j.upload_url = r->upload_url;
	j.upload_token = r->upload_url ? r->job->upload_token : NULL;
	ret = initramfs_job(jobp, &j, err);
	if (ret)
		goto out;
	parts[0] = base;
	parts[1] = kpart;
	parts[2] = jobp;
	parts[3] = r->job->extra_archive;
	ret = merge_archives(r->initrd, parts, parts[3] ? 4 : 3, err);
out:
	if (ret == -ENOMEM && !err->msg[0])
		rtlab_err_seterr(err, ENOMEM, "out of memory");
	free(cache);
	free(init);
	free(agent);
	free(base);
	free(kpart);
	free(jobp);
	return ret;
}

static int write_job(struct lrun *r, unsigned int boot_s, unsigned int test_s,
		     struct rtlab_err *err)
{
	struct lava_job_params p = { 0 };
	const struct lava_conf *c = &lb(r->b)->conf;
	const char *parts[2] = { r->b->k->cmdline, NULL };
	char name[160], *text, *notify = NULL;
	size_t n;
	int ret;

	if (asprintf(&r->cmdline, "console=ttyS0,115200 noirqdebug%s%s",
		     parts[0] ? " " : "", parts[0] ? parts[0] : "") < 0) {
		r->cmdline = NULL;
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	snprintf(name, sizeof(name), "rtlab %s %s %s on %s", r->testcase_name,
		 r->b->kernel, r->run_id, r->b->name);
	p.device_type = lb(r->b)->conf.device_type;
	p.job_name = name;
	p.kernel_path = r->b->id.image_path;
	p.ramdisk_path = r->initrd;
	p.cmdline = r->cmdline;
	p.boot_timeout_s = boot_s;
	p.test_timeout_s = test_s;
	if (c->notify_url) {
		n = strlen(c->notify_url);
		while (n && c->notify_url[n - 1] == '/')
			n--;
		if (asprintf(&notify, "%.*s" LAVA_NOTIFY_PATH, (int)n,
			     c->notify_url) < 0)
			return rtlab_err_seterr(err, ENOMEM, "out of memory");
		p.notify_url = notify;
		p.notify_token = c->notify_token;
	}
	text = lava_job_render(&p);
	free(notify);
	r->job_path = path_join(r->work, "job.yaml");
	if (!text || !r->job_path) {
		free(text);
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	ret = file_write_all(r->job_path, text, strlen(text), err);
	free(text);
	return ret;
}

/* lava-run on this host: its log (stderr) goes to @log_path. */
static int run_dispatcher(struct lrun *r, unsigned int limit_s,
			  const char *log_path, bool *ran,
			  struct rtlab_err *err)
{
	const struct lava_conf *c = &lb(r->b)->conf;
	char idbuf[32], *outdir = path_join(r->work, "lava-output");
	char tmpdir[64];
	double t0 = clock_mono_s();
	int st = 0, ret = 0;
	pid_t pid, w;

	*ran = false;
	if (!outdir)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	/* distinct ids: LAVA's working files are /var/lib/lava/dispatcher/
	 * tmp/<id>/ */
	r->lava_job_id = (long)(strtoul(r->run_id + 24, NULL, 16) % 900000000) +
			 100000000;
	snprintf(idbuf, sizeof(idbuf), "%ld", r->lava_job_id);
	snprintf(tmpdir, sizeof(tmpdir), "/var/lib/lava/dispatcher/tmp/%s",
		 idbuf);
	{
		char *argv[] = { c->lava_run,	 "--job-id",  idbuf,
				 "--output-dir", outdir,      "--device",
				 c->device,	 r->job_path, NULL };

		pid = spawn_logged(argv, log_path, false, 0, err);
	}
	if (pid < 0) {
		free(outdir);
		return pid;
	}
	for (;;) {
		w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (clock_mono_s() - t0 > limit_s) {
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			ret = rtlab_err_seterr(err, ETIMEDOUT,
					       "infrastructure error: board "
					       "%s: lava-run still running "
					       "after %u s (past the job's own "
					       "timeout); killed",
					       r->b->name, limit_s);
			goto out;
		}
		usleep(200000);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		ret = rtlab_err_seterr(err, ENOENT,
				       "infrastructure error: board %s: "
				       "cannot run %s",
				       r->b->name, c->lava_run);
	else if (WIFSIGNALED(st))
		ret = rtlab_err_seterr(err, EIO,
				       "infrastructure error: board %s: "
				       "lava-run killed by signal %d",
				       r->b->name, WTERMSIG(st));
	else
		*ran = true; /* its exit status is the job's: the log says */
out:
	rmtree(tmpdir);
	free(outdir);
	return ret;
}

/* The manifest's record of the LAVA side. */
static json_t *lava_json(struct lrun *r, const struct lava_log *l)
{
	const struct lava_conf *c = &lb(r->b)->conf;
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?, s:s?, s:s?, "
			      "s:s?, s:s?}",
			      "board", r->b->name, "kind", "lava", "mode",
			      c->mode, "device_type", c->device_type, "server",
			      c->url, "lava_result", l->result, "error_type",
			      l->error_type, "kernel_cmdline", r->cmdline,
			      "upload_url", r->upload_url, "bundle_via",
			      r->via);

	if (j && r->lava_job_id)
		json_object_set_new(j, "lava_job_id",
				    json_integer(r->lava_job_id));
	if (j && c->notify_url)
		json_object_set_new(j, "notified", json_boolean(r->notified));
	if (j)
		json_object_set_new(j, "total_s",
				    json_real(clock_mono_s() - r->t0));
	return j;
}

/* console.log and lava.log into @bd and the manifest's "files". */
static int add_console(struct bundle *bd, json_t *m, const struct lava_log *l,
		       const char *log_text, size_t log_len)
{
	return board_bundle_add_log(bd, m, "console.log", l->console, l->console_len, LOG_KEEP_BYTES) ?:
		       board_bundle_add_log(bd, m, "lava.log", log_text,
					    log_len, LOG_KEEP_BYTES);
}

static int fault_bundle(struct lrun *r, enum run_status st, const char *why,
			const struct lava_log *l, const char *log_text,
			size_t log_len, const char *out, struct rtlab_err *err)
{
	json_t *lava = lava_json(r, l);
	const struct board_fault_run f = {
		.run_id = r->run_id,
		.board = r->b->name,
		.status = st,
		.why = why,
		.testcase = r->testcase_name,
		.duration_s = r->job->duration_s,
		.kernel = &r->b->id,
		.clock = "lava",
		.cmdline = r->cmdline,
		.started_at = r->started_at,
		.kind_key = "lava",
		.kind_json = lava,
	};
	struct bundle *bd = bundle_alloc();
	json_t *m = board_fault_manifest(&f);
	int ret;

	json_decref(lava);
	if (!bd || !m) {
		ret = rtlab_err_seterr(err, ENOMEM,
				       "fault bundle: out of memory");
		goto out;
	}
	ret = add_console(bd, m, l, log_text, log_len);
	ret = ret ? rtlab_err_seterr(err, -ret, "bundle: %s", strerror(-ret)) :
		    board_bundle_write(bd, m, out, err);
out:
	json_decref(m);
	bundle_free(bd);
	return ret;
}

/* The agent's bundle from the log, with the console and LAVA's facts;
 * -EBADMSG with @why when it is not a bundle. */
static int agent_bundle(struct lrun *r, const struct lava_log *l,
			const char *log_text, size_t log_len, const char *out,
			char *why, size_t whylen, struct rtlab_err *err)
{
	struct rtlab_err perr = { "" };
	unsigned char *data = NULL;
	struct bundle *bd = NULL;
	json_error_t jerr;
	json_t *m = NULL;
	size_t size;
	int ret;

	ret = lava_bundle_extract(l->console, &data, &size, &perr);
	if (!ret) {
		bd = bundle_read_mem(data, size, &perr);
		if (!bd)
			ret = -EBADMSG;
	}
	if (ret) {
		snprintf(why, whylen, "%s", perr.msg);
		ret = -EBADMSG;
		goto out;
	}
	m = board_bundle_manifest(bd, &jerr);
	if (!m) {
		snprintf(why, whylen,
			 "the board's bundle has no readable manifest.json");
		ret = -EBADMSG;
		goto out;
	}
	json_object_set_new(m, "lava", lava_json(r, l));
	ret = add_console(bd, m, l, log_text, log_len);
	ret = ret ? rtlab_err_seterr(err, -ret, "bundle: %s", strerror(-ret)) :
		    board_bundle_write(bd, m, out, err);
out:
	json_decref(m);
	bundle_free(bd);
	free(data);
	return ret;
}

/*
 * The board uploaded the run itself: @out gets what the host saw of it,
 * console.log, lava.log and lava.json (LAVA's side, as the manifest's
 * "lava" would have it), for the worker to add to the stored run; its
 * manifest.json only names the run.
 * Return: BOARD_RUN_STORED, or a negative errno with @err set; -EBADMSG
 * with @why when the board named another run.
 */
static int stored_logs(struct lrun *r, const struct lava_log *l,
		       const char *log_text, size_t log_len, const char *out,
		       char *why, size_t whylen, struct rtlab_err *err)
{
	const char *p = strstr(l->console, UPLOADED);
	json_t *lava = NULL, *m = json_pack("{s:s, s:s}", "run_id", r->run_id,
					    "stored_by", "board");
	struct bundle *bd = bundle_alloc();
	char want[64], *text = NULL;
	int ret;

	snprintf(want, sizeof(want), "run=%s", r->run_id);
	p += strlen(UPLOADED);
	if (strncmp(p, want, strlen(want))) {
		snprintf(why, whylen,
			 "the board reported another run uploaded: %.80s", p);
		ret = -EBADMSG;
		goto out;
	}
	lava = lava_json(r, l);
	text = lava ? json_dumps(lava, JSON_INDENT(2)) : NULL;
	if (!bd || !m || !text) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = add_console(bd, m, l, log_text, log_len) ?:
		      bundle_add(bd, "lava.json", text, strlen(text));
	if (ret) {
		rtlab_err_seterr(err, -ret, "bundle: %s", strerror(-ret));
		goto out;
	}
	ret = board_bundle_write(bd, m, out, err);
	if (!ret)
		ret = BOARD_RUN_STORED;
out:
	free(text);
	json_decref(lava);
	json_decref(m);
	bundle_free(bd);
	return ret;
}

/* rtlab's runs endpoint under @base, the server as the board reaches it. */
static char *runs_url(const char *base)
{
	size_t n = strlen(base);
	char *url;

	while (n && base[n - 1] == '/')
		n--;
	if (n >= strlen(API_RUNS) &&
	    !strncmp(base + n - strlen(API_RUNS), API_RUNS, strlen(API_RUNS)))
		return strndup(base, n);
	return asprintf(&url, "%.*s" API_RUNS, (int)n, base) < 0 ? NULL : url;
}

static int lava_run(struct board *b, const struct board_job *job,
		    const char *out, struct board_run_info *info,
		    struct rtlab_err *err)
{
	const struct lava_conf *c = &lb(b)->conf;
	struct lrun r = { .b = b, .job = job };
	struct lava_log l = { 0 };
	char tmpl[PATH_MAX], why[RTLAB_ERR_LEN + 128], *log_path = NULL;
	char *log_text = NULL;
	size_t log_len = 0;
	unsigned int boot_s, test_s;
	enum lava_outcome oc;
	enum run_status st = RUN_STATUS_AGENT_ERROR;
	bool ran = false;
	int ret;

	r.t0 = clock_mono_s();
	clock_iso_utc(r.started_at, time(NULL));
	board_run_id(r.run_id, job->run_id);
	r.testcase_name = board_testcase_name(job->testcase_path);
	r.via = "log";
	if (c->upload_url && job->upload_token && *job->upload_token) {
		r.upload_url = runs_url(c->upload_url);
		if (!r.upload_url) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			goto out;
		}
	} else if (c->upload_url) {
		fprintf(stderr,
			"rtlab: board %s: upload_url set, but the run has no "
			"board token (rtlab worker --token): the bundle comes "
			"back in LAVA's log\n",
			b->name);
	}
	snprintf(tmpl, sizeof(tmpl), "%s/rtlab-lava-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") :
							 "/tmp");
	if (!mkdtemp(tmpl)) {
		ret = rtlab_err_seterr(err, errno, "mkdtemp: %s",
				       strerror(errno));
		goto out;
	}
	r.work = strdup(tmpl);
	log_path = path_join(tmpl, "lava.log");
	if (!r.work || !log_path || !r.testcase_name) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = initramfs_check_testcase(job->testcase_path, err);
	if (ret)
		goto out;
	ret = build_initrd(&r, err);
	if (ret)
		goto out;
	boot_s = c->boot_timeout_s;
	test_s = c->hang_margin_s + job->duration_s * c->slowdown;
	ret = write_job(&r, boot_s, test_s, err);
	if (ret)
		goto out;
	if (c->server)
		ret = lava_server_run(b->name, c, r.job_path, log_path,
				      3 * (LAVA_DEPLOY_S + boot_s + test_s),
				      &r.lava_job_id, &ran, &r.notified, err);
	else
		ret = run_dispatcher(&r, LAVA_DEPLOY_S + boot_s + test_s + 600,
				     log_path, &ran, err);
	if (ret) {
		if (info)
			info->infra = true;
		goto out;
	}
	ret = file_read_all(log_path, &log_text, &log_len, err);
	if (!ret && lava_log_parse(log_text, log_len, &l))
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	if (ret) {
		rtlab_err_prefix(err, "board %s: the LAVA job log", b->name);
		goto out;
	}
	oc = lava_outcome_classify(&l, ran);
	why[0] = '\0';
	switch (oc) {
	case LAVA_OUTCOME_INFRA:
		if (info)
			info->infra = true;
		ret = rtlab_err_seterr(err, EIO,
				       "infrastructure error: board %s: LAVA "
				       "job %ld: %s: %s",
				       b->name, r.lava_job_id,
				       l.error_type ? l.error_type :
						      "no result",
				       l.error_msg ? l.error_msg :
						     "(no message)");
		goto out;
	case LAVA_OUTCOME_UPLOADED:
		r.via = "upload";
		ret = stored_logs(&r, &l, log_text, log_len, out, why,
				  sizeof(why), err);
		if (ret != -EBADMSG)
			goto out;
		break;
	case LAVA_OUTCOME_BUNDLE:
		ret = agent_bundle(&r, &l, log_text, log_len, out, why,
				   sizeof(why), err);
		if (ret != -EBADMSG)
			goto done;
		break;
	case LAVA_OUTCOME_PANIC:
		st = RUN_STATUS_PANIC;
		snprintf(why, sizeof(why), "kernel panic while measuring");
		break;
	case LAVA_OUTCOME_BOOT_FAILED:
		st = RUN_STATUS_BOOT_FAILED;
		snprintf(why, sizeof(why),
			 strstr(l.console, "Kernel panic") ?
				 "kernel panic before the agent started" :
			 strstr(l.console, "Linux version") ?
				 "the board never reached the agent (LAVA: "
				 "%.200s)" :
				 "no kernel output (LAVA: %.200s)",
			 l.error_msg ? l.error_msg : "no error");
		break;
	case LAVA_OUTCOME_HANG:
		st = RUN_STATUS_HANG;
		snprintf(why, sizeof(why),
			 "the agent did not finish within the test timeout "
			 "of %u s (LAVA: %.200s)",
			 test_s, l.error_msg ? l.error_msg : "no error");
		break;
	default:
		snprintf(why, sizeof(why),
			 "the agent ended without a bundle (LAVA: %.200s)",
			 l.error_msg ? l.error_msg : "no error");
	}
	ret = fault_bundle(&r, st, why, &l, log_text, log_len, out, err);
done:
	if (!ret && info)
		board_bundle_status(out, info);
out:
	if (info)
		info->total_s = clock_mono_s() - r.t0;
	if (r.work)
		rmtree(r.work);
	lava_log_cleanup(&l);
	free(log_text);
	free(log_path);
	free(r.work);
	free(r.initrd);
	free(r.job_path);
	free(r.cmdline);
	free(r.testcase_name);
	free(r.upload_url);
	return ret;
}

const struct board_kind board_kind_lava = {
	.name = "lava",
	.boots_kernel = true,
	.check_job = lava_check_job,
	.open = lava_open,
	.prepare = lava_prepare,
	.run = lava_run,
	.release = lava_release,
};
