// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ssh board: a machine reachable by ssh that boots the job's kernel
 * with kexec (or a reboot-into command of its own).  rtlab copies the
 * kernel and an initramfs (the virtual board's, with the board's network
 * driver, an sshd and the job), boots it, waits for the init to report the
 * bundle ready in /tmp/rtlab-status, and fetches it.  A board that does
 * not come back is recovered with its power commands (shell commands,
 * the pdudaemon convention); its faults are results like the virtual
 * board's, its unreachability an infrastructure error.
 */

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "clock.h"
#include "config.h"
#include "fsutil.h"
#include "yamlmap.h"
#include "board.h"
#include "board-bundle.h"
#include "bundle.h"
#include "initramfs.h"
#include "manifest.h"
#include "testcase.h"

#define SSH_KEYS                                                    \
	"name, kind, description, host, port, user, key, cmdline, " \
	"reboot_into, console, power_on, power_off, power_cycle, "  \
	"boot_timeout_s, hang_margin_s, slowdown, up_timeout_s, "   \
	"interval_us, remote_dir"
#define SSH_BUNDLE_MAX (1UL << 30)
#define SSH_PANIC_GRACE_S 2.0
#define SSH_POLL_S 2.0
#define SSH_CMD_TIMEOUT_S 120.0
#define SSH_LOG_KEEP (16UL << 20)

/* An ssh board's definition (boards/NAME.yaml, kind: ssh). */
struct ssh_def {
	char *path, *name, *description;
	char *host, *user, *key, *pubkey;
	unsigned int port;
	char *cmdline;	   /* the job kernel's command line, may be NULL */
	char *reboot_into; /* instead of kexec, may be NULL */
	char *console;	   /* prints the board's console, may be NULL */
	char *power_on, *power_off, *power_cycle; /* may be NULL */
	char *remote_dir;
	unsigned int boot_timeout_s, hang_margin_s, slowdown, up_timeout_s;
	unsigned int interval_us;
};

static void ssh_def_free(struct ssh_def *d)
{
	if (!d)
		return;
	free(d->path);
	free(d->name);
	free(d->description);
	free(d->host);
	free(d->user);
	free(d->key);
	free(d->pubkey);
	free(d->cmdline);
	free(d->reboot_into);
	free(d->console);
	free(d->power_on);
	free(d->power_off);
	free(d->power_cycle);
	free(d->remote_dir);
	free(d);
}

/* Characters a value may hold to stand on the board's command line. */
static bool remote_safe(const char *s)
{
	for (; s && *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789/._-=,:+ ",
			    *s))
			return false;
	return true;
}

static struct ssh_def *ssh_def_load(const char *path, struct rtlab_err *err)
{
	unsigned long port = 22, boot = 300, margin = 60, slow = 2, up = 300,
		      interval = 0;
	char *kind = NULL;
	struct ymap_entry *e;
	struct ssh_def *d;
	struct ymap m;

	if (ymap_load(path, &m, err))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path)))
		goto nomem;
	if (ymap_str(&m, "name", false, &d->name, err) ||
	    ymap_str(&m, "kind", true, &kind, err) ||
	    ymap_str(&m, "description", false, &d->description, err) ||
	    ymap_str(&m, "host", true, &d->host, err) ||
	    ymap_uint(&m, "port", 1, 65535, &port, err) ||
	    ymap_str(&m, "user", false, &d->user, err) ||
	    ymap_str(&m, "key", true, &d->key, err) ||
	    ymap_str(&m, "cmdline", false, &d->cmdline, err) ||
	    ymap_str(&m, "reboot_into", false, &d->reboot_into, err) ||
	    ymap_str(&m, "console", false, &d->console, err) ||
	    ymap_str(&m, "power_on", false, &d->power_on, err) ||
	    ymap_str(&m, "power_off", false, &d->power_off, err) ||
	    ymap_str(&m, "power_cycle", false, &d->power_cycle, err) ||
	    ymap_uint(&m, "boot_timeout_s", 5, 3600, &boot, err) ||
	    ymap_uint(&m, "hang_margin_s", 5, 86400, &margin, err) ||
	    ymap_uint(&m, "slowdown", 1, 1000, &slow, err) ||
	    ymap_uint(&m, "up_timeout_s", 5, 3600, &up, err) ||
	    ymap_uint(&m, "interval_us", TC_MIN_INTERVAL_US, TC_MAX_INTERVAL_US,
		      &interval, err) ||
	    ymap_str(&m, "remote_dir", false, &d->remote_dir, err) ||
	    ymap_unused(&m, SSH_KEYS, err))
		goto fail;
	if (strcmp(kind, board_kind_ssh.name)) {
		e = ymap_get(&m, "kind");
		rtlab_err_set(err,
			      "%s: line %lu: field 'kind': '%s', expected "
			      "'ssh' for a board of kind ssh",
			      path, e->line, kind);
		goto fail;
	}
	if (!remote_safe(d->host) || !remote_safe(d->cmdline) ||
	    !remote_safe(d->remote_dir) || (d->user && !remote_safe(d->user))) {
		rtlab_err_set(err,
			      "%s: host, user, cmdline and remote_dir may only "
			      "hold letters, digits, spaces and '/._-=,:+'",
			      path);
		goto fail;
	}
	if (!d->user && !(d->user = strdup("root")))
		goto nomem;
	if (!d->remote_dir && !(d->remote_dir = strdup("/tmp/rtlab")))
		goto nomem;
	if (!d->name) {
		const char *base = strrchr(path, '/');

		d->name = strdup(base ? base + 1 : path);
		if (!d->name)
			goto nomem;
		if (strrchr(d->name, '.'))
			*strrchr(d->name, '.') = '\0';
	}
	if (access(d->key, R_OK)) {
		e = ymap_get(&m, "key");
		rtlab_err_set(err, "%s: line %lu: field 'key': %s: %s", path,
			      e->line, d->key, strerror(errno));
		goto fail;
	}
	if (asprintf(&d->pubkey, "%s.pub", d->key) < 0) {
		d->pubkey = NULL;
		goto nomem;
	}
	if (access(d->pubkey, R_OK)) {
		e = ymap_get(&m, "key");
		rtlab_err_set(err,
			      "%s: line %lu: field 'key': %s: %s (the public "
			      "half, put in the job system's authorized_keys)",
			      path, e->line, d->pubkey, strerror(errno));
		goto fail;
	}
	d->port = port;
	d->boot_timeout_s = boot;
	d->hang_margin_s = margin;
	d->slowdown = slow;
	d->up_timeout_s = up;
	d->interval_us = interval;
	free(kind);
	ymap_cleanup(&m);
	return d;
nomem:
	rtlab_err_set(err, "%s: out of memory", path);
fail:
	free(kind);
	ssh_def_free(d);
	ymap_cleanup(&m);
	return NULL;
}

/* The definition a registered board names ("board" field, else its own
 * name), by name (boards/NAME.yaml) or path. */
static struct ssh_def *ssh_def_for(const char *board, const char *def_json,
				   const char *def_name, struct rtlab_err *err)
{
	char *name = def_name ? strdup(def_name) :
				board_definition_name(board, def_json, err);
	char *dir = NULL, *path = NULL;
	struct ssh_def *d = NULL;
	size_t n;

	if (!name)
		return NULL;
	n = strlen(name);
	if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".yaml"))) {
		d = ssh_def_load(name, err);
	} else if ((dir = rtlab_data_path("boards")) &&
		   asprintf(&path, "%s/%s.yaml", dir, name) >= 0) {
		if (access(path, R_OK) < 0)
			rtlab_err_set(err, "board '%s': no definition %s",
				      board, path);
		else
			d = ssh_def_load(path, err);
	}
	if (!d)
		rtlab_err_prefix(err, "board %s", board);
	free(path);
	free(dir);
	free(name);
	return d;
}

/* -- running commands --------------------------------------------------- */

struct srun {
	struct board *b;
	const struct ssh_def *d;
	char run_id[37];
	char *work, *console_path;
	pid_t console_pid;
	char started_at[CLOCK_ISO_SIZE];
	/* what the resident system told about its network */
	char mac[32], addr[64], gw[64], drv[64];
	/* the wait */
	unsigned int duration_s;
	double t_boot, t_start, t_panic;
	bool done, not_sent;
	char status_line[160];
	double upload_s; /* the ssh path's own costs */
	unsigned long long upload_bytes;
	char *log; /* what the driver did: commands, power, their output */
	size_t log_len;
	FILE *logf;
};

/* The log of what the driver did, attached to every bundle as ssh.log. */
static void slog(struct srun *r, const char *fmt, ...) __printf(2, 3);
static void slog(struct srun *r, const char *fmt, ...)
{
	char ts[CLOCK_ISO_SIZE];
	va_list ap;

	if (!r->logf)
		return;
	clock_iso_utc(ts, time(NULL));
	fprintf(r->logf, "%s ", ts);
	va_start(ap, fmt);
	vfprintf(r->logf, fmt, ap);
	va_end(ap);
	fputc('\n', r->logf);
	fflush(r->logf);
}

typedef bool (*line_fn)(struct srun *r, const char *line);

/*
 * Run @argv with stdin from @in_fd (-1: /dev/null); stdout into *@out
 * (NULL: given line by line to @on_line, or dropped), stderr into @errbuf.
 * Killed past @timeout_s, or when @on_line returns false.
 * Return: the exit status, 128+N for a signal, -ETIMEDOUT, or -errno.
 */
static int run_cmd(struct srun *r, char *const argv[], int in_fd, char **out,
		   size_t *out_len, line_fn on_line, double timeout_s,
		   char *errbuf, size_t errlen)
{
	int op[2], ep[2], st = 0, ret = 0;
	size_t elen = 0, olen = 0, ocap = 0;
	char *obuf = NULL, lbuf[1024];
	size_t llen = 0;
	double t_end = clock_mono_s() + timeout_s;
	bool killed = false, oopen = true, eopen = true;
	pid_t pid;

	if (errlen)
		errbuf[0] = '\0';
	if (pipe2(op, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		close(op[0]);
		close(op[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(op[0]);
		close(op[1]);
		close(ep[0]);
		close(ep[1]);
		return ret;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		dup2(in_fd >= 0 ? in_fd : nul, 0);
		dup2(op[1], 1);
		dup2(ep[1], 2);
		execvp(argv[0], argv);
		dprintf(2, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(op[1]);
	close(ep[1]);
	while (oopen || eopen) {
		struct pollfd p[2] = { { oopen ? op[0] : -1, POLLIN, 0 },
				       { eopen ? ep[0] : -1, POLLIN, 0 } };
		double left = t_end - clock_mono_s();
		char buf[65536];
		ssize_t n;

		if (left <= 0 && !killed) {
			kill(-pid, SIGKILL);
			killed = true;
			ret = -ETIMEDOUT;
		}
		if (poll(p, 2,
			 left > 0 && left < 1 ? (int)(left * 1000) + 1 : 1000) <
			    0 &&
		    errno != EINTR)
			break;
		if (p[0].revents) {
			n = read(op[0], buf, sizeof(buf));
			if (n <= 0) {
				oopen = false;
			} else if (out) {
				if (olen + n + 1 > ocap) {
					char *nb;

					ocap = (olen + n + 1) * 2;
					nb = olen + n > SSH_BUNDLE_MAX ?
						     NULL :
						     realloc(obuf, ocap);
					if (!nb) {
						kill(-pid, SIGKILL);
						killed = true;
						ret = -EFBIG;
						oopen = false;
						continue;
					}
					obuf = nb;
				}
				memcpy(obuf + olen, buf, n);
				olen += n;
				obuf[olen] = '\0';
			} else if (on_line) {
				for (ssize_t i = 0; i < n; i++) {
					if (buf[i] != '\n' &&
					    llen < sizeof(lbuf) - 1) {
						lbuf[llen++] = buf[i];
						continue;
					}
					lbuf[llen] = '\0';
					llen = 0;
					if (!killed && !on_line(r, lbuf)) {
						kill(-pid, SIGKILL);
						killed = true;
					}
				}
			}
		}
		if (p[1].revents) {
			n = read(ep[0], buf, sizeof(buf));
			if (n <= 0) {
				eopen = false;
			} else if (elen + 1 < errlen) {
				size_t k = (size_t)n < errlen - elen - 1 ?
						   (size_t)n :
						   errlen - elen - 1;

				memcpy(errbuf + elen, buf, k);
				elen += k;
				errbuf[elen] = '\0';
			}
		}
		/* a line callback also watches the clock */
		if (on_line && !killed && !on_line(r, NULL)) {
			kill(-pid, SIGKILL);
			killed = true;
		}
	}
	close(op[0]);
	close(ep[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	/* the last line of stderr is the one that says why */
	while (elen && (errbuf[elen - 1] == '\n' || errbuf[elen - 1] == '\r'))
		errbuf[--elen] = '\0';
	if (out) {
		*out = obuf;
		if (out_len)
			*out_len = olen;
	} else {
		free(obuf);
	}
	if (ret)
		return ret;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ssh to the board, running @cmd there. */
static int ssh_cmd(struct srun *r, const char *cmd, int in_fd, char **out,
		   size_t *out_len, line_fn on_line, double timeout_s,
		   char *errbuf, size_t errlen)
{
	const struct ssh_def *d = r->d;
	char port[16], dest[256];
	char *argv[] = { "ssh", "-p", port, "-i", d->key, "-o", "BatchMode=yes",
			 "-o", "IdentitiesOnly=yes",
			 /* the job system makes a host key every boot */
			 "-o", "StrictHostKeyChecking=no", "-o",
			 "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
			 "-o", "ConnectTimeout=15", "-o",
			 "ServerAliveInterval=5", "-o", "ServerAliveCountMax=6",
			 "-o", "Compression=yes", dest, (char *)cmd, NULL };

	snprintf(port, sizeof(port), "%u", d->port);
	snprintf(dest, sizeof(dest), "%s@%s", d->user, d->host);
	return run_cmd(r, argv, in_fd, out, out_len, on_line, timeout_s, errbuf,
		       errlen);
}

/* A power command of the definition, run by sh on this host. */
static int power(struct srun *r, const char *what, const char *cmd)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	char errbuf[512];
	int ret;

	setenv("RTLAB_BOARD", r->b->name, 1);
	ret = run_cmd(r, argv, -1, NULL, NULL, NULL, SSH_CMD_TIMEOUT_S, errbuf,
		      sizeof(errbuf));
	slog(r, "%s: sh -c '%s': exit %d%s%s", what, cmd, ret,
	     errbuf[0] ? ": " : "", errbuf);
	return ret;
}

/* The board answers ssh: 0, else the ssh status with @errbuf. */
static int reachable(struct srun *r, char *errbuf, size_t errlen)
{
	return ssh_cmd(r, "true", -1, NULL, NULL, NULL, 30, errbuf, errlen);
}

/* ssh's own refusals that power does not cure. */
static bool auth_failure(const char *e)
{
	return strstr(e, "Permission denied") ||
	       strstr(e, "Host key verification failed") ||
	       strstr(e, "Load key");
}

/* Power the board off and on; wait until it answers ssh again.
 * Return: what happened, for the run's error text. */
static const char *recover(struct srun *r)
{
	const struct ssh_def *d = r->d;
	double t_end;
	char e[512];

	if (d->power_cycle) {
		power(r, "power_cycle", d->power_cycle);
	} else if (d->power_off && d->power_on) {
		power(r, "power_off", d->power_off);
		power(r, "power_on", d->power_on);
	} else {
		slog(r, "recover: the board has no power commands");
		return "the board has no power commands, left as it is";
	}
	t_end = clock_mono_s() + d->up_timeout_s;
	while (clock_mono_s() < t_end) {
		if (!reachable(r, e, sizeof(e))) {
			slog(r, "recover: the board answers ssh again");
			return "power-cycled, the board is back";
		}
		sleep(2);
	}
	slog(r, "recover: no ssh within %u s of the power cycle: %s",
	     d->up_timeout_s, e);
	return "power-cycled, but the board did not answer ssh again";
}

/* -- the console -------------------------------------------------------- */

static void console_start(struct srun *r)
{
	struct rtlab_err err = { "" };
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };

	if (!r->d->console)
		return;
	argv[2] = r->d->console;
	r->console_pid =
		spawn_logged(argv, r->console_path, true, SIGTERM, &err);
	if (r->console_pid < 0)
		r->console_pid = 0;
}

static void console_stop(struct srun *r)
{
	if (r->console_pid > 0) {
		kill(-r->console_pid, SIGTERM);
		waitpid(r->console_pid, NULL, 0);
		r->console_pid = 0;
	}
}

static bool console_has(const struct srun *r, const char *s, char *line,
			size_t linelen)
{
	char *text = NULL, *p, *e;
	size_t len = 0;
	bool found;

	if (file_read_all(r->console_path, &text, &len, NULL) || !text)
		return false;
	p = strstr(text, s);
	found = p != NULL;
	if (p && line) {
		e = strchr(p, '\n');
		snprintf(line, linelen, "%.*s", (int)(e ? e - p : 160), p);
		if ((e = strchr(line, '\r')))
			*e = '\0';
	}
	free(text);
	return found;
}

/* -- the run ------------------------------------------------------------ */

/* Network facts of the running system, read before the kexec. */
static const char probe_script[] =
	"dev=$(ip -4 route show default 2>/dev/null | sed -n "
	"'s/.* dev \\([^ ]*\\).*/\\1/p' | head -n 1); "
	"gw=$(ip -4 route show default 2>/dev/null | sed -n "
	"'s/^default via \\([^ ]*\\).*/\\1/p' | head -n 1); "
	"[ -n \"$dev\" ] || dev=$(ip -o -4 addr show | awk '$2 != \"lo\" "
	"{print $2; exit}'); "
	"echo \"mac=$(cat /sys/class/net/$dev/address)\"; "
	"echo \"addr=$(ip -o -4 addr show dev $dev | awk '{print $4; exit}')\"; "
	"echo \"gw=$gw\"; "
	"echo \"drv=$(basename $(readlink /sys/class/net/$dev/device/driver) "
	"2>/dev/null)\"";

static void probe_value(const char *text, const char *key, char *out,
			size_t len)
{
	char pat[32];
	const char *p, *e;

	out[0] = '\0';
	snprintf(pat, sizeof(pat), "%s=", key);
	for (p = text; p && (p = strstr(p, pat)); p++)
		if (p == text || p[-1] == '\n')
			break;
	if (!p)
		return;
	p += strlen(pat);
	e = strchr(p, '\n');
	snprintf(out, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
}

/* The wait script's lines: "up|agent|done|not-sent RUN_ID". */
static bool on_status(struct srun *r, const char *line)
{
	const char *id;
	char l[160];

	if (!line) {
		/* the clock and the console, between lines */
		snprintf(l, sizeof(l), "RTLAB-AGENT-START run=%s", r->run_id);
		if (!r->t_start && console_has(r, l, NULL, 0))
			r->t_start = clock_mono_s();
		if (!r->t_panic && console_has(r, "Kernel panic", NULL, 0))
			r->t_panic = clock_mono_s();
		if (r->t_panic)
			return clock_mono_s() - r->t_panic < SSH_PANIC_GRACE_S;
		if (!r->t_start)
			return clock_mono_s() - r->t_boot <
			       r->d->boot_timeout_s;
		return clock_mono_s() - r->t_start <
		       r->d->hang_margin_s +
			       (double)r->d->slowdown * r->duration_s;
	}
	snprintf(l, sizeof(l), "%s", line);
	id = strchr(l, ' ');
	if (!id || strcmp(id + 1, r->run_id))
		return true; /* the system before the kexec */
	snprintf(r->status_line, sizeof(r->status_line), "%s", l);
	if (!strncmp(l, "agent ", 6) && !r->t_start) {
		r->t_start = clock_mono_s();
		slog(r, "the agent started, %.1f s after the boot",
		     r->t_start - r->t_boot);
	} else if (!strncmp(l, "done ", 5)) {
		r->done = true;
		return false;
	} else if (!strncmp(l, "not-sent ", 9)) {
		r->not_sent = true;
		return false;
	}
	return true;
}

/* The board's own description, for every manifest. */
static json_t *board_json(struct srun *r, const char *cmdline, double boot_s)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s?}", "board",
			      r->b->name, "kind", board_kind_ssh.name, "host",
			      r->d->host, "port", (int)r->d->port, "boot",
			      r->d->reboot_into ? "reboot_into" : "kexec",
			      "kernel_cmdline", cmdline, "network_driver",
			      r->drv[0] ? r->drv : NULL);

	if (j && boot_s >= 0)
		json_object_set_new(j, "boot_s", json_real(boot_s));
	if (j && r->upload_s > 0) {
		json_object_set_new(j, "upload_s", json_real(r->upload_s));
		json_object_set_new(j, "upload_bytes",
				    json_integer(r->upload_bytes));
	}
	return j;
}

/* console.log, ssh.log and the manifest into @bd, written to @out. */
static int finish(struct srun *r, struct bundle *bd, json_t *m, const char *out,
		  struct rtlab_err *err)
{
	char *con = NULL;
	size_t clen = 0;
	int ret;

	if (r->logf)
		fflush(r->logf);
	if (file_read_all(r->console_path, &con, &clen, NULL))
		clen = 0;
	ret = board_bundle_add_log(bd, m, "console.log", con, clen,
				   SSH_LOG_KEEP);
	free(con);
	if (!ret)
		ret = board_bundle_add_log(bd, m, "ssh.log", r->log, r->log_len,
					   SSH_LOG_KEEP);
	if (ret)
		return rtlab_err_seterr(err, -ret, "bundle: %s",
					strerror(-ret));
	return board_bundle_write(bd, m, out, err);
}

static int fault_bundle(struct srun *r, const struct board_job *job,
			enum run_status st, const char *why, json_t *sb,
			const char *cmdline, const char *out,
			struct rtlab_err *err)
{
	char *tc = board_testcase_name(job->testcase_path);
	const struct board_fault_run f = {
		.run_id = r->run_id,
		.board = r->b->name,
		.status = st,
		.why = why,
		.testcase = tc ? tc : "",
		.duration_s = job->duration_s,
		.kernel = &r->b->id,
		.clock = "host",
		.cmdline = cmdline,
		.started_at = r->started_at,
		.kind_key = "ssh_board",
		.kind_json = sb,
	};
	struct bundle *bd = bundle_alloc();
	json_t *m = board_fault_manifest(&f);
	int ret;

	free(tc);
	if (!bd || !m)
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	else
		ret = finish(r, bd, m, out, err);
	json_decref(m);
	bundle_free(bd);
	return ret;
}

/* The agent's bundle as the board kept it, checked and completed. */
static int agent_bundle(struct srun *r, const char *data, size_t size,
			json_t *sb, const char *out, char *why, size_t whylen,
			struct rtlab_err *err)
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
			 "the board's bundle has no readable manifest.json");
		ret = -EBADMSG;
	} else {
		json_object_set(m, "ssh_board", sb);
		ret = finish(r, bd, m, out, err);
	}
	json_decref(m);
	bundle_free(bd);
	return ret;
}

/* @path gzip'd beside it (PATH.gz), made once: the base archive is kept
 * plain for the virtual board, but an ssh board gets it over the network.
 * *@gz: malloc'd. */
static int gz_beside(const char *path, char **gz, struct rtlab_err *err)
{
	char *tmp = NULL, buf[1 << 16];
	gzFile g = NULL;
	ssize_t n;
	int fd = -1, ret = 0;

	if (asprintf(gz, "%s.gz", path) < 0) {
		*gz = NULL;
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	if (!access(*gz, R_OK))
		return 0;
	if (asprintf(&tmp, "%s.%d.tmp", *gz, (int)getpid()) < 0) {
		tmp = NULL;
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	g = fd < 0 ? NULL : gzopen(tmp, "wb1");
	if (!g) {
		ret = rtlab_err_seterr(err, errno ? errno : EIO, "%s: %s",
				       fd < 0 ? path : tmp, strerror(errno));
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (gzwrite(g, buf, n) != n) {
			ret = rtlab_err_seterr(err, EIO, "%s: write failed",
					       tmp);
			break;
		}
	if (gzclose(g) != Z_OK && !ret)
		ret = rtlab_err_seterr(err, EIO, "%s: write failed", tmp);
	if (!ret && rename(tmp, *gz) < 0)
		ret = rtlab_err_seterr(err, errno, "%s: %s", *gz,
				       strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (ret) {
		if (tmp)
			unlink(tmp);
		free(*gz);
		*gz = NULL;
	}
	free(tmp);
	return ret;
}

/* Build the job's initrd in the work directory. */
static int build_initrd(struct srun *r, const struct board_job *job,
			const char *initrd, struct rtlab_err *err)
{
	struct initramfs_job ij = { 0 };
	char *cache = initramfs_cache_dir(), *init = NULL;
	char *agent = NULL, *base = NULL, *kpart = NULL, *jobp = NULL;
	char *params = NULL, *basegz = NULL;
	const char *mods[2] = { r->drv[0] ? r->drv : NULL, NULL };
	const char *parts[4];
	bool built;
	int ret = -ENOMEM;

	init = rtlab_data_path("boards/guest-init.sh");
	agent = r->b->agent ? strdup(r->b->agent) : rtlab_agent_path();
	jobp = path_join(r->work, "job.cpio.gz");
	if (!cache || !init || !jobp)
		goto out;
	if (agent && access(agent, X_OK)) {
		free(agent);
		agent = NULL;
	}
	if (asprintf(&params,
		     "RTLAB_TRANSPORT=ssh\nRTLAB_NET_MAC='%s'\n"
		     "RTLAB_NET_ADDR='%s'\nRTLAB_NET_GW='%s'\n"
		     "RTLAB_NET_MODULES='%s'\n",
		     r->mac, r->addr, r->gw, r->drv) < 0) {
		params = NULL;
		goto out;
	}
	ret = initramfs_base(cache, init, agent, &base, &built, err);
	if (!ret)
		ret = gz_beside(base, &basegz, err);
	if (!ret)
		ret = initramfs_kernel(cache, &r->b->id, mods, &kpart, err);
	if (ret)
		goto out;
	ij.run_id = r->run_id;
	ij.board = r->b->name;
	ij.clock = "host"; /* the board's own hardware clock */
	ij.kernel_name = r->b->id.name;
	ij.kernel_tree = r->b->id.tree;
	ij.duration_s = job->duration_s;
	ij.interval_us = r->d->interval_us;
	ij.testcase_path = job->testcase_path;
	ij.release = r->b->id.release;
	ij.extra_params = params;
	ij.authorized_keys = r->d->pubkey;
	ret = initramfs_job(jobp, &ij, err);
	if (ret)
		goto out;
	parts[0] = basegz;
	parts[1] = kpart;
	parts[2] = jobp;
	parts[3] = job->extra_archive;
	ret = initramfs_concat(initrd, parts, parts[3] ? 4 : 3, err);
out:
	if (ret == -ENOMEM && !err->msg[0])
		rtlab_err_seterr(err, ENOMEM, "out of memory");
	free(cache);
	free(init);
	free(agent);
	free(base);
	free(basegz);
	free(kpart);
	free(jobp);
	free(params);
	return ret;
}

/* Copy @local to @remote on the board. */
static int upload(struct srun *r, const char *local, const char *remote,
		  struct rtlab_err *err)
{
	char *cmd = NULL, e[512];
	double t0 = clock_mono_s();
	int fd, ret;

	fd = open(local, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rtlab_err_seterr(err, errno, "%s: %s", local,
					strerror(errno));
	if (asprintf(&cmd, "mkdir -p %s && cat >%s/%s", r->d->remote_dir,
		     r->d->remote_dir, remote) < 0) {
		close(fd);
		return -ENOMEM;
	}
	ret = ssh_cmd(r, cmd, fd, NULL, NULL, NULL, 600, e, sizeof(e));
	r->upload_s += clock_mono_s() - t0;
	{
		struct stat stt;

		if (!fstat(fd, &stt))
			r->upload_bytes += stt.st_size;
	}
	close(fd);
	free(cmd);
	slog(r, "upload %s to %s/%s: exit %d, %.1f s%s%s", local,
	     r->d->remote_dir, remote, ret, clock_mono_s() - t0,
	     e[0] ? ": " : "", e);
	if (ret)
		return rtlab_err_seterr(err, EIO,
					"infrastructure error: board %s: "
					"copying %s to it failed (%d): %s",
					r->b->name, remote, ret, e);
	return 0;
}

/* reboot_into with {kernel}, {initrd}, {cmdline} filled in; malloc'd. */
static char *reboot_command(const struct ssh_def *d, const char *cmdline)
{
	const char *p = d->reboot_into, *q;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	while (*p) {
		q = strchr(p, '{');
		if (!q) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, q - p, f);
		if (!strncmp(q, "{kernel}", 8)) {
			fprintf(f, "%s/vmlinuz", d->remote_dir);
			p = q + 8;
		} else if (!strncmp(q, "{initrd}", 8)) {
			fprintf(f, "%s/initrd.img", d->remote_dir);
			p = q + 8;
		} else if (!strncmp(q, "{cmdline}", 9)) {
			fprintf(f, "'%s'", cmdline);
			p = q + 9;
		} else {
			fputc('{', f);
			p = q + 1;
		}
	}
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

static int ssh_run(struct board *b, const struct board_job *job,
		   const char *out, struct board_run_info *info,
		   struct rtlab_err *err)
{
	const struct ssh_def *d = b->kind_data;
	struct srun r = { .b = b, .d = d, .duration_s = job->duration_s };
	char tmpl[PATH_MAX], e[512], why[RTLAB_ERR_LEN + 256], line[200];
	char *probe = NULL, *cmdline = NULL, *boot = NULL, *wait = NULL;
	char *initrd = NULL, *data = NULL;
	const char *rec = NULL;
	size_t dlen = 0;
	json_t *sb = NULL;
	enum run_status st;
	double t0 = clock_mono_s();
	int ret, rc;

	clock_iso_utc(r.started_at, time(NULL));
	board_run_id(r.run_id, job->run_id);
	snprintf(tmpl, sizeof(tmpl), "%s/rtlab-ssh-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") :
							 "/tmp");
	if (!mkdtemp(tmpl))
		return rtlab_err_seterr(err, errno, "mkdtemp: %s",
					strerror(errno));
	r.work = strdup(tmpl);
	r.console_path = path_join(tmpl, "console.log");
	initrd = path_join(tmpl, "initrd.img");
	r.logf = open_memstream(&r.log, &r.log_len);
	if (!r.work || !r.console_path || !initrd || !r.logf) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	console_start(&r);

	/* The board as it is: reachable, and its network. */
	rc = reachable(&r, e, sizeof(e));
	slog(&r, "ssh %s@%s:%u: exit %d%s%s", d->user, d->host, d->port, rc,
	     e[0] ? ": " : "", e);
	if (rc && !auth_failure(e)) {
		rec = recover(&r);
		rc = reachable(&r, e, sizeof(e));
	}
	if (rc) {
		if (info)
			info->infra = true;
		ret = rtlab_err_seterr(err, EHOSTUNREACH,
				       "infrastructure error: board %s: ssh "
				       "%s@%s port %u with key %s: %s%s%s",
				       b->name, d->user, d->host, d->port,
				       d->key, e[0] ? e : "failed",
				       rec ? "; " : "", rec ? rec : "");
		goto out;
	}
	rc = ssh_cmd(&r, probe_script, -1, &probe, NULL, NULL, 60, e,
		     sizeof(e));
	if (!rc && probe) {
		probe_value(probe, "mac", r.mac, sizeof(r.mac));
		probe_value(probe, "addr", r.addr, sizeof(r.addr));
		probe_value(probe, "gw", r.gw, sizeof(r.gw));
		probe_value(probe, "drv", r.drv, sizeof(r.drv));
	}
	slog(&r, "network: mac=%s addr=%s gw=%s driver=%s", r.mac, r.addr, r.gw,
	     r.drv);
	if (rc || !r.mac[0] || !r.addr[0] || !remote_safe(r.mac) ||
	    !remote_safe(r.addr) || !remote_safe(r.gw) || !remote_safe(r.drv)) {
		if (info)
			info->infra = true;
		ret = rtlab_err_seterr(err, EIO,
				       "infrastructure error: board %s: could "
				       "not read its network (interface of "
				       "the default route, MAC, address)%s%s",
				       b->name, e[0] ? ": " : "", e);
		goto out;
	}

	/* The job's system, copied and booted. */
	ret = build_initrd(&r, job, initrd, err);
	if (ret)
		goto out;
	ret = upload(&r, b->id.image_path, "vmlinuz", err) ?:
		      upload(&r, initrd, "initrd.img", err);
	if (ret) {
		if (info)
			info->infra = true;
		goto out;
	}
	if (asprintf(&cmdline, "%s%s%s", d->cmdline ? d->cmdline : "",
		     b->k->cmdline && d->cmdline ? " " : "",
		     b->k->cmdline ? b->k->cmdline : "") < 0 ||
	    (d->reboot_into ?
		     !(boot = reboot_command(d, cmdline)) :
		     asprintf(&boot,
			      "kexec -l %s/vmlinuz "
			      "--initrd=%s/initrd.img "
			      "--append='%s' && "
			      "{ (sleep 1; kexec -e) </dev/null "
			      ">/dev/null 2>&1 & }",
			      d->remote_dir, d->remote_dir, cmdline) < 0) ||
	    asprintf(&wait,
		     "last=; while :; do "
		     "s=$(cat /tmp/rtlab-status 2>/dev/null); "
		     "[ \"$s\" != \"$last\" ] && echo \"$s\" && last=$s; "
		     "case $s in 'done %s'|'not-sent %s') exit 0;; esac; "
		     "sleep 1; done",
		     r.run_id, r.run_id) < 0) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	rc = ssh_cmd(&r, boot, -1, NULL, NULL, NULL, 120, e, sizeof(e));
	slog(&r, "boot: %s: exit %d%s%s", boot, rc, e[0] ? ": " : "", e);
	if (rc) {
		if (info)
			info->infra = true;
		ret = rtlab_err_seterr(err, EIO,
				       "infrastructure error: board %s: "
				       "%s failed (exit %d): %s",
				       b->name,
				       d->reboot_into ? "reboot_into" :
							"kexec -l",
				       rc, e);
		goto out;
	}
	r.t_boot = clock_mono_s();
	sleep(3); /* the kexec -e comes a second after the command */

	/* Wait for the job's system: a connection to it that ends when the
	 * bundle is ready; reconnect while it boots. */
	while (!r.done && !r.not_sent && on_status(&r, NULL)) {
		rc = ssh_cmd(&r, wait, -1, NULL, NULL, on_status, 1e9, e,
			     sizeof(e));
		if (r.done || r.not_sent || !on_status(&r, NULL))
			break;
		sleep((unsigned int)SSH_POLL_S);
	}
	slog(&r, "wait ended: status '%s'%s%s", r.status_line,
	     e[0] ? ", ssh: " : "", e);
	sb = board_json(&r, cmdline, r.t_start ? r.t_start - r.t_boot : -1);
	if (!sb) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	st = RUN_STATUS_AGENT_ERROR;
	why[0] = '\0';
	if (r.done) {
		double tf = clock_mono_s();

		rc = ssh_cmd(&r, "cat /tmp/bundle.tar.gz", -1, &data, &dlen,
			     NULL, 600, e, sizeof(e));
		json_object_set_new(sb, "fetch_s",
				    json_real(clock_mono_s() - tf));
		slog(&r, "fetch: exit %d, %zu bytes%s%s", rc, dlen,
		     e[0] ? ": " : "", e);
		if (rc) {
			if (info)
				info->infra = true;
			ret = rtlab_err_seterr(err, EIO,
					       "infrastructure error: board "
					       "%s: fetching the bundle "
					       "failed: %s",
					       b->name, e);
			goto out;
		}
		console_stop(&r);
		ret = agent_bundle(&r, data, dlen, sb, out, why, sizeof(why),
				   err);
		if (ret != -EBADMSG)
			goto done;
	} else if (r.not_sent) {
		snprintf(why, sizeof(why), "the agent left no bundle");
	} else if (r.t_panic) {
		console_has(&r, "Kernel panic", line, sizeof(line));
		st = r.t_start ? RUN_STATUS_PANIC : RUN_STATUS_BOOT_FAILED;
		snprintf(why, sizeof(why), "%s: %s",
			 r.t_start ? "kernel panic while measuring" :
				     "kernel panic before the agent started",
			 line);
	} else if (!r.t_start) {
		st = RUN_STATUS_BOOT_FAILED;
		snprintf(why, sizeof(why),
			 "the job's system did not report within %u s of "
			 "the %s",
			 d->boot_timeout_s,
			 d->reboot_into ? "reboot" : "kexec");
	} else {
		st = RUN_STATUS_HANG;
		snprintf(why, sizeof(why),
			 "no result within %u s of the agent's start "
			 "(duration %u s)",
			 d->hang_margin_s + d->slowdown * job->duration_s,
			 job->duration_s);
	}
	/* A board that failed the job is brought back for the next. */
	if (!r.done && !r.not_sent) {
		rec = recover(&r);
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; %s",
			 rec);
	}
	console_stop(&r);
	ret = fault_bundle(&r, job, st, why, sb, cmdline, out, err);
done:
	if (!ret && info)
		board_bundle_status(out, info);
out:
	console_stop(&r);
	if (info) {
		info->boot_s = r.t_start ? r.t_start - r.t_boot : -1;
		info->total_s = clock_mono_s() - t0;
		info->channel_bytes = dlen;
	}
	if (r.logf)
		fclose(r.logf);
	if (r.work)
		rmtree(r.work);
	json_decref(sb);
	free(r.log);
	free(r.work);
	free(r.console_path);
	free(initrd);
	free(probe);
	free(cmdline);
	free(boot);
	free(wait);
	free(data);
	return ret;
}

/* -- the kind ----------------------------------------------------------- */

/* The kernel's command line goes into a shell command on the board. */
static int check_kernel_cmdline(const struct kernel_def *k,
				struct rtlab_err *err)
{
	if (remote_safe(k->cmdline))
		return 0;
	return rtlab_err_set(err,
			     "kernel %s: field 'cmdline': on an ssh board it may "
			     "only hold letters, digits, spaces and '/._-=,:+'",
			     k->name);
}

static int ssh_check_job(const char *board, const char *definition_json,
			 const char *kernel, const char *testcase_path,
			 char **stored_kernel, struct rtlab_err *err)
{
	struct ssh_def *d;

	if (!strcmp(kernel, BOARD_KERNEL_HOST))
		return rtlab_err_set(err,
				     "--kernel " BOARD_KERNEL_HOST
				     ": board '%s' boots the job's kernel: "
				     "expected a kernel definition "
				     "(kernels/NAME.yaml)",
				     board);
	d = ssh_def_for(board, definition_json, NULL, err);
	if (!d)
		return -EINVAL;
	ssh_def_free(d);
	return board_check_kernel_job(kernel, testcase_path,
				      check_kernel_cmdline, stored_kernel, err);
}

static int ssh_open(struct board *b, const char *definition_json,
		    const char *def_name, struct rtlab_err *err)
{
	struct ssh_def *d =
		ssh_def_for(b->name, definition_json, def_name, err);

	if (!d)
		return -EINVAL;
	b->kind_data = d;
	b->k = kernel_def_find(b->kernel, err);
	return b->k ? check_kernel_cmdline(b->k, err) : -EINVAL;
}

static int ssh_prepare(struct board *b, struct rtlab_err *err)
{
	return board_fetch_kernel(b, err);
}

static void ssh_release(struct board *b)
{
	ssh_def_free(b->kind_data);
	b->kind_data = NULL;
}

const struct board_kind board_kind_ssh = {
	.name = "ssh",
	.boots_kernel = true,
	.check_job = ssh_check_job,
	.open = ssh_open,
	.prepare = ssh_prepare,
	.run = ssh_run,
	.release = ssh_release,
};
