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
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
#include "bundle.h"
#include "channel.h"
#include "initramfs.h"
#include "manifest.h"
#include "progress.h"
#include "testcase.h"

#define CHANNEL_MAX_BYTES (1ULL << 30)
#define PANIC_GRACE_S 2.0	    /* console lines after "Kernel panic" */
#define POWEROFF_GRACE_S 30.0	    /* bundle received, waiting for poweroff */
#define LOG_KEEP_BYTES (16UL << 20) /* console.log, qemu.log: their end */

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
	struct progress pg;
	char what[96];
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
	if (r->id.package)
		json_object_set_new(j, "kernel_package",
				    json_sprintf("%s %s", r->id.package,
						 r->id.package_version));
	return j;
}

/* Add @name to the manifest's "files" map. */
static int manifest_add_file(json_t *m, const char *name, const void *data,
			     size_t size)
{
	json_t *files = json_object_get(m, "files");
	char hex[65];

	if (!json_is_object(files)) {
		files = json_object();
		if (!files || json_object_set_new(m, "files", files))
			return -ENOMEM;
	}
	sha256_hex(data, size, hex);
	return json_object_set_new(files, name,
				   json_pack("{s:I, s:s}", "size",
					     (json_int_t)size, "sha256", hex)) ?
		       -ENOMEM :
		       0;
}

/* Put @m as manifest.json, console.log and friends into @bd, write it. */
static int finish_bundle(struct run *r, struct bundle *bd, json_t *m,
			 const char *out, struct rtlab_err *err)
{
	const struct bundle_file *f;
	char *text = NULL, *qlog = NULL;
	size_t qlen = 0;
	int ret;

	/* The logs keep their ends (how the run ended) within the limits,
	 * so a flooded console cannot cost the run its bundle. */
	ret = bundle_add_tail(bd, "console.log", r->con ? r->con : "",
			      r->con_len, LOG_KEEP_BYTES, NULL);
	f = ret ? NULL : bundle_get(bd, "console.log");
	if (f)
		ret = manifest_add_file(m, "console.log", f->data, f->size);
	if (!ret && !file_read_all(r->qemu_log, &qlog, &qlen, NULL) && qlen) {
		ret = bundle_add_tail(bd, "qemu.log", qlog, qlen,
				      LOG_KEEP_BYTES, NULL);
		f = ret ? NULL : bundle_get(bd, "qemu.log");
		if (f)
			ret = manifest_add_file(m, "qemu.log", f->data,
						f->size);
	}
	free(qlog);
	if (ret)
		return rtlab_err_seterr(err, -ret, "bundle: %s",
					strerror(-ret));
	text = json_dumps(m, JSON_INDENT(2));
	if (!text)
		return rtlab_err_seterr(err, ENOMEM, "manifest: out of memory");
	ret = bundle_add(bd, BUNDLE_MANIFEST, text, strlen(text));
	free(text);
	if (ret)
		return rtlab_err_seterr(err, -ret, "bundle: %s",
					strerror(-ret));
	return bundle_write(bd, out, err);
}

/* A bundle the host writes when the board could not deliver one. */
static int fault_bundle(struct run *r, enum run_status st, const char *why,
			json_t *vboard, const char *out, struct rtlab_err *err)
{
	struct bundle *bd = bundle_alloc();
	char fin[CLOCK_ISO_SIZE];
	json_t *m, *kern;
	int ret;

	clock_iso_utc(fin, time(NULL));
	kern = json_pack("{s:s, s:s?, s:s, s:s?, s:s?}", "release",
			 r->id.release, "version", r->id.version, "name",
			 r->id.name, "tree", r->id.tree, "config_sha256",
			 r->id.config_sha256[0] ? r->id.config_sha256 : NULL);
	if (kern)
		json_object_set_new(kern, "realtime",
				    r->id.realtime < 0 ?
					    json_null() :
					    json_boolean(r->id.realtime));
	m = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:{s:s, s:i}, s:o, "
		      "s:{s:s, s:s}, s:s, s:s, s:O}",
		      "format", MANIFEST_FORMAT, "format_version",
		      MANIFEST_FORMAT_VERSION, "run_id", r->run_id, "board",
		      r->b->name, "status", run_status_name(st), "error", why,
		      "testcase", "name", r->testcase_name, "duration_s",
		      (int)r->o->duration_s, "kernel", kern, "environment",
		      "clock", r->clock, "cmdline", r->cmdline, "started_at",
		      r->started_at, "finished_at", fin, "virtual_board",
		      vboard);
	if (!bd || !m) {
		ret = rtlab_err_seterr(err, ENOMEM,
				       "fault bundle: out of "
				       "memory");
		goto out;
	}
	ret = finish_bundle(r, bd, m, out, err);
out:
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
	const struct bundle_file *mf;
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
	mf = bundle_get(bd, BUNDLE_MANIFEST);
	if (mf)
		m = json_loadb((const char *)mf->data, mf->size, 0, &jerr);
	if (!json_is_object(m)) {
		snprintf(why, whylen,
			 "the board's bundle has no readable "
			 "manifest.json%s%s",
			 m ? "" : ": ", m ? "" : jerr.text);
		ret = -EBADMSG;
		goto out;
	}
	json_object_set(m, "virtual_board", vboard);
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

static pid_t spawn_qemu(struct run *r, struct rtlab_err *err)
{
	pid_t pid;
	int fd;

	pid = fork();
	if (pid < 0)
		return rtlab_err_seterr(err, errno, "fork: %s",
					strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		/* a board never outlives its driver (Ctrl-C, killed worker) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = open(r->qemu_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		execvp(r->qemu_argv[0], r->qemu_argv);
		dprintf(2, "cannot run %s: %s\n", r->qemu_argv[0],
			strerror(errno));
		_exit(127);
	}
	return pid;
}

enum outcome {
	OUT_RUNNING,
	OUT_EXITED, /* QEMU ended by itself */
	OUT_PANIC,
	OUT_BOOT_TIMEOUT,
	OUT_HANG,
	OUT_POWEROFF_TIMEOUT,
};

/* Boot, measure, receive: returns how it ended. */
static enum outcome supervise(struct run *r, pid_t pid, int lfd,
			      unsigned int boot_to, unsigned int hang_to,
			      int *wstatus)
{
	double panic_at = 0, done_at = 0, t;
	enum outcome oc = OUT_RUNNING;
	struct pollfd pfd;
	int cfd = -1, dummy;
	size_t off, size;
	unsigned char buf[1 << 16];
	ssize_t n;

	phase(r, "boot");
	while (oc == OUT_RUNNING) {
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
				} else if (n == 0) {
					close(cfd);
					cfd = -2; /* stop polling */
				}
			}
		}
		console_poll(r);
		t = clock_mono_s();
		if (!r->t_start && console_has(r, "RTLAB-AGENT-START")) {
			r->t_start = t;
			phase(r, "measure");
		}
		if (!panic_at && console_has(r, "Kernel panic"))
			panic_at = t;
		if (!done_at && r->chan_len && !r->chan_overflow &&
		    channel_parse(r->chan, r->chan_len, &off, &size, NULL) !=
			    -EAGAIN) {
			done_at = t;
			phase(r, "hand-over");
		}
		if (waitpid(pid, wstatus, WNOHANG) == pid) {
			oc = OUT_EXITED;
			break;
		}
		if (panic_at && t - panic_at > PANIC_GRACE_S)
			oc = OUT_PANIC;
		else if (!r->t_start && t - r->t_qemu > boot_to)
			oc = OUT_BOOT_TIMEOUT;
		else if (r->t_start && !done_at && t - r->t_start > hang_to)
			oc = OUT_HANG;
		else if (done_at && t - done_at > POWEROFF_GRACE_S)
			oc = OUT_POWEROFF_TIMEOUT;
		if (r->o->progress)
			progress_update(&r->pg);
	}
	if (oc != OUT_EXITED) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &dummy, 0) < 0 && errno == EINTR)
			;
		*wstatus = dummy;
	}
	/* drain what is left on the channel */
	while (cfd >= 0 && (n = read(cfd, buf, sizeof(buf))) > 0) {
		r->chan_last = clock_mono_s();
		if (append(&r->chan, &r->chan_len, &r->chan_cap, buf, n))
			break;
	}
	if (cfd >= 0)
		close(cfd);
	console_poll(r);
	return oc;
}

/*
 * Before anything boots: the testcase must parse (the agent's own parser,
 * lib/testcase.c, naming the file and key) and every tool it needs must be
 * one the initramfs can carry.
 */
static int check_testcase(const char *testcase_path, struct rtlab_err *err)
{
	const char **tools = NULL;
	struct testcase tc;
	size_t n = 0;
	int ret;

	ret = testcase_load(testcase_path, &tc, err);
	if (ret)
		goto out;
	tools = testcase_tools(&tc);
	if (!tools) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	while (tools[n])
		n++;
	ret = initramfs_check_tools(tools, n, err);
	if (ret)
		rtlab_err_prefix(err, "testcase %s", testcase_path);
out:
	free(tools);
	testcase_cleanup(&tc);
	return ret;
}

static int prepare(struct run *r, const struct kernel_def *k,
		   const char *testcase_path, struct rtlab_err *err)
{
	struct initramfs_job job = { 0 };
	char *cache = NULL, *init = NULL, *agent = NULL, *base = NULL;
	char *kpart = NULL, *jobp = NULL, *initrd = NULL;
	const char *parts[4];
	bool built = false;
	int ret;

	ret = check_testcase(testcase_path, err);
	if (ret)
		return ret;
	phase(r, "fetch");
	ret = kernel_fetch(k, NULL, &r->id, err);
	if (ret)
		return ret;
	phase(r, "initramfs");
	{
		char *root = rtlab_cache_dir();

		cache = root ? path_join(root, "initramfs") : NULL;
		free(root);
	}
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
	ret = initramfs_kernel(cache, &r->id, &kpart, err);
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

int board_run(const struct board_def *b, const struct kernel_def *k,
	      const char *testcase_path, const struct board_run_opts *o,
	      const char *out_bundle, struct board_run_info *info,
	      struct rtlab_err *err)
{
	struct run r = { .b = b, .o = o, .con_fd = -1 };
	struct rtlab_err cerr = { "" };
	char why[RTLAB_ERR_LEN + 128], line[200],
		tmpl[] = "/tmp/rtlab-board-XXXXXX";
	unsigned int boot_to, hang_to;
	enum outcome oc;
	enum run_status st;
	json_t *vb = NULL;
	size_t off = 0, size = 0;
	double boot_s = -1, chan_s = 0;
	int ret, lfd = -1, wst = 0, cret;
	const char *slash;
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
	if (o->run_id) {
		if (!valid_run_id(o->run_id))
			return rtlab_err_set(err,
					     "run id '%s': expected a "
					     "UUID",
					     o->run_id);
		snprintf(r.run_id, sizeof(r.run_id), "%s", o->run_id);
	} else {
		uuid_t u;

		uuid_generate(u);
		uuid_unparse_lower(u, r.run_id);
	}
	if (access(testcase_path, R_OK) < 0)
		return rtlab_err_seterr(err, errno, "%s: testcase: %s",
					testcase_path, strerror(errno));
	slash = strrchr(testcase_path, '/');
	r.testcase_name = strdup(slash ? slash + 1 : testcase_path);
	if (r.testcase_name && strstr(r.testcase_name, ".yaml"))
		*strstr(r.testcase_name, ".yaml") = '\0';
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
	oc = supervise(&r, pid, lfd, boot_to, hang_to, &wst);
	if (r.t_start)
		boot_s = r.t_start - r.t_qemu;
	if (r.chan_len > 1)
		chan_s = r.chan_last - r.chan_first;
	vb = board_json(&r, boot_s, chan_s);
	if (!vb) {
		ret = -ENOMEM;
		goto out;
	}

	/* What became of the run. */
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
	st = RUN_STATUS_AGENT_ERROR;
	if (!cret) {
		ret = agent_bundle(&r, r.chan + off, size, vb, out_bundle, why,
				   sizeof(why), err);
		if (ret != -EBADMSG)
			goto done; /* delivered, or a host failure */
	} else if (oc == OUT_PANIC || console_has(&r, "Kernel panic")) {
		console_line(&r, "Kernel panic", line, sizeof(line));
		st = r.t_start ? RUN_STATUS_PANIC : RUN_STATUS_BOOT_FAILED;
		snprintf(why, sizeof(why), "%s: %s",
			 r.t_start ? "kernel panic while measuring" :
				     "kernel panic before the agent started",
			 line);
	} else if (oc == OUT_BOOT_TIMEOUT) {
		st = RUN_STATUS_BOOT_FAILED;
		snprintf(why, sizeof(why),
			 console_has(&r, "Linux version") ?
				 "no agent start within %u s of QEMU starting (the "
				 "kernel printed, userspace never reported)" :
				 "no kernel output within %u s of QEMU starting",
			 boot_to);
	} else if (oc == OUT_HANG) {
		st = RUN_STATUS_HANG;
		snprintf(why, sizeof(why),
			 "board silent for %u s after the "
			 "agent started (duration %u s); QEMU killed",
			 hang_to, o->duration_s);
	} else if (!r.t_start) {
		st = RUN_STATUS_BOOT_FAILED;
		snprintf(why, sizeof(why),
			 "QEMU exited (status %d) before the "
			 "agent started%s",
			 WIFEXITED(wst) ? WEXITSTATUS(wst) :
					  128 + WTERMSIG(wst),
			 console_has(&r, "Linux version") ?
				 "" :
				 ", without kernel output (see qemu.log)");
	}
	/* else agent_error with the channel's complaint in @why */
	ret = fault_bundle(&r, st, why, vb, out_bundle, err);
done:
	if (!ret && info) {
		const struct bundle_file *bf;
		struct bundle *chk = bundle_read(out_bundle, NULL);
		struct manifest m;

		bf = chk ? bundle_get(chk, BUNDLE_MANIFEST) : NULL;
		if (bf && !manifest_parse((const char *)bf->data, bf->size, &m,
					  NULL)) {
			snprintf(info->status, sizeof(info->status), "%s",
				 run_status_name(m.status));
			manifest_cleanup(&m);
		}
		bundle_free(chk);
	}
out:
	if (o->progress)
		progress_done(&r.pg);
	if (info) {
		info->boot_s = boot_s;
		info->total_s = clock_mono_s() - r.t0;
		info->channel_bytes = r.chan_len;
		info->channel_s = chan_s;
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
	free(r.testcase_name);
	free(r.console_path);
	free(r.qemu_log);
	free(r.sock_path);
	free(r.work);
	kernel_ident_cleanup(&r.id);
	return ret;
}
