// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The worker loop: claim a job of a board kind that has a driver, run it
 * in a child process through the board interface (boards/board.h, the same
 * calls for every kind) while a thread renews the lease, hand the bundle
 * over (server API or direct ingest), and record the outcome.  No bundle is
 * an infrastructure error: the job is queued again.  A stop request abandons the running job cleanly: the child
 * is stopped and the job queued again.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>
#include <uuid/uuid.h>

#include "../boards/board.h"
#include "../kernels/kernel.h"
#include "../kernels/module.h"
#include "bundle.h"
#include "config.h"
#include "fsutil.h"
#include "../db/db-jobs.h"
#include "../db/db-runs.h"
#include "../db/db.h"
#include "ingest.h"
#include "jobs.h"
#include "log.h"
#include "manifest.h"
#include "progress.h"
#include "testcase.h"
#include "worker.h"
#include "bisect.h"
#include "health.h"

#define API_RUNS "/api/v1/runs"
#define UPLOAD_TIMEOUT_S 600
#define CHILD_ERROR_FILE "error.txt"
#define CHILD_LOG_FILE "agent.log"
#define CHILD_STORED_FILE "stored" /* the board uploaded the run itself */
#define BUNDLE_FILE "bundle.tar.gz"

static volatile sig_atomic_t stop_requested;

void worker_stop(void)
{
	stop_requested = 1;
}

/* -- the lease ------------------------------------------------------------ */

struct lease {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool inited;
	bool started;
	bool stop;
	bool lost; /* another worker holds the job now */
	bool phase_new;
	char phase[32];
	PGconn *conn; /* the thread's own connection */
	int64_t id;
	const char *worker;
	unsigned int lease_s;
};

static void *lease_main(void *arg)
{
	struct lease *l = arg;
	unsigned int every_s = l->lease_s / 3 ? l->lease_s / 3 : 1;
	struct rtlab_err err = { "" };
	char phase[32];
	struct timespec t;
	int ret;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_sec += every_s;
		while (!l->stop && !l->phase_new &&
		       pthread_cond_timedwait(&l->cond, &l->lock, &t) !=
			       ETIMEDOUT)
			;
		if (l->stop)
			break;
		l->phase_new = false;
		snprintf(phase, sizeof(phase), "%s", l->phase);
		pthread_mutex_unlock(&l->lock);
		ret = db_job_renew(l->conn, l->id, l->worker, l->lease_s,
				   phase[0] ? phase : NULL, &err);
		pthread_mutex_lock(&l->lock);
		if (ret == -ESTALE) {
			l->lost = true;
			break;
		}
		if (ret)
			log_warn("job %" PRId64 ": %s (retrying)", l->id,
				 err.msg);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

static int lease_start(struct lease *l, int64_t id, const char *worker,
		       unsigned int lease_s, struct rtlab_err *err)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	l->inited = true;
	l->id = id;
	l->worker = worker;
	l->lease_s = lease_s;
	l->conn = db_connect(err);
	if (!l->conn)
		return -EIO;
	if (pthread_create(&l->thread, NULL, lease_main, l)) {
		db_disconnect(l->conn);
		l->conn = NULL;
		return rtlab_err_seterr(err, EAGAIN,
					"job %" PRId64 ": cannot "
					"start the lease thread",
					id);
	}
	l->started = true;
	return 0;
}

static void lease_phase(struct lease *l, const char *phase)
{
	if (!l->started)
		return;
	pthread_mutex_lock(&l->lock);
	snprintf(l->phase, sizeof(l->phase), "%s", phase);
	l->phase_new = true;
	pthread_cond_signal(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

static bool lease_lost(struct lease *l)
{
	bool lost;

	if (!l->started)
		return false;
	pthread_mutex_lock(&l->lock);
	lost = l->lost;
	pthread_mutex_unlock(&l->lock);
	return lost;
}

static void lease_stop(struct lease *l)
{
	if (!l->inited)
		return;
	if (l->started) {
		pthread_mutex_lock(&l->lock);
		l->stop = true;
		pthread_cond_signal(&l->cond);
		pthread_mutex_unlock(&l->lock);
		pthread_join(l->thread, NULL);
		l->started = false;
	}
	db_disconnect(l->conn);
	l->conn = NULL;
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
	l->inited = false;
}

/* -- files ---------------------------------------------------------------- */

/* Read a whole file; NULL with errno set. */
static void *read_file(const char *path, size_t *size)
{
	struct stat st;
	void *buf;
	FILE *f;

	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fclose(f);
		errno = EINVAL;
		return NULL;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (buf && fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		buf = NULL;
		errno = EIO;
	}
	fclose(f);
	*size = (size_t)st.st_size;
	return buf;
}

/* The last non-empty line of a text file, for error messages ("" when
 * none); at most @size - 1 characters. */
static void last_line(const char *path, char *out, size_t size)
{
	size_t n = 0, end, start;
	char *text = read_file(path, &n);

	out[0] = '\0';
	if (!text)
		return;
	end = n;
	while (end && (text[end - 1] == '\n' || text[end - 1] == '\r' ||
		       text[end - 1] == ' '))
		end--;
	start = end;
	while (start && text[start - 1] != '\n')
		start--;
	snprintf(out, size, "%.*s", (int)(end - start), text + start);
	free(text);
}

static void remove_tree(const char *dir)
{
	char *argv[] = { "rm", "-rf", "--", (char *)dir, NULL };
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execvp("rm", argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
}

/* -- the child that makes the bundle ------------------------------------- */

struct job_run {
	const struct worker_opts *o;
	struct db_job *job;
	const char *worker;
	char run_id[37];
	char *work;   /* work directory */
	char *bundle; /* work/bundle.tar.gz */
	char *log;    /* work/agent.log */
	char *agent;
};

/* In the child: stdout and stderr to the job's log, die with the worker. */
static void child_setup(const struct job_run *r, pid_t parent)
{
	int fd;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(126);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	fd = open(r->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
}

static void child_error(const struct job_run *r, const char *msg)
{
	char *path = path_join(r->work, CHILD_ERROR_FILE);
	FILE *f = path ? fopen(path, "w") : NULL;

	if (f) {
		fprintf(f, "%s\n", msg);
		fclose(f);
	}
	free(path);
}

/*
 * A testcase with a kernel injector load (`preempt`, `irq`, `tick`) on a board
 * that boots the job's kernel: the rtlab_inject module built for that
 * kernel, as an archive for its initrd, in *@cpio (malloc'd; NULL when
 * the testcase needs none).  Without it the agent's injector finds no
 * module and the run would be clean: a planted regression that is not.
 */
static int job_module_archive(const struct job_run *r, const struct board *b,
			      char **cpio, struct rtlab_err *err)
{
	struct testcase tc;
	bool needs;
	int ret;

	*cpio = NULL;
	if (!b->kind->boots_kernel)
		return 0;
	ret = testcase_load(r->job->testcase_file, &tc, err);
	needs = !ret && testcase_needs_inject_module(&tc);
	testcase_cleanup(&tc);
	if (ret || !needs)
		return ret;
	*cpio = path_join(r->work, "inject.cpio.gz");
	if (!*cpio)
		return -ENOMEM;
	return module_inject_archive(&b->id, *cpio, err);
}

/* The job's run on its board, through the board interface. */
static void child_run(const struct job_run *r)
{
	struct board_job bj = { 0 };
	struct rtlab_err err = { "" };
	char *spool = path_join(r->work, "spool"), *cpio = NULL;
	struct board *b;
	int ret = -EINVAL;

	b = board_open(r->job->board_kind, r->job->board,
		       r->job->board_definition, r->job->kernel, &err);
	if (b) {
		b->agent = strdup(r->agent);
		ret = board_prepare(b, &err);
	}
	if (!ret)
		ret = job_module_archive(r, b, &cpio, &err);
	if (!ret) {
		bj.extra_archive = cpio;
		bj.testcase_path = r->job->testcase_file;
		bj.duration_s = r->job->duration_s;
		bj.run_id = r->run_id;
		bj.log_path = r->log;
		bj.spool_dir = spool;
		/* the token is one board's: a worker given --board */
		if (r->o->board && !strcmp(r->o->board, r->job->board))
			bj.upload_token = r->o->token;
		ret = board_job_run(b, &bj, r->bundle, NULL, &err);
	}
	if (ret == BOARD_RUN_STORED) {
		char *path = path_join(r->work, CHILD_STORED_FILE);
		int fd = path ? open(path, O_WRONLY | O_CREAT, 0644) : -1;

		ret = fd < 0 ? rtlab_err_seterr(&err, errno, "%s: %s",
						CHILD_STORED_FILE,
						strerror(errno)) :
			       0;
		if (fd >= 0)
			close(fd);
		free(path);
	}
	if (ret)
		child_error(r, err.msg[0] ? err.msg : "the board failed");
	board_close(b);
	free(cpio);
	free(spool);
	_exit(ret ? 1 : 0);
}

/* -- handing the bundle over --------------------------------------------- */

struct buf {
	char *data;
	size_t len;
};

static size_t buf_write(char *ptr, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;
	size_t add = size * n;
	char *bigger;

	if (b->len + add > 1 << 20)
		return 0;
	bigger = realloc(b->data, b->len + add + 1);
	if (!bigger)
		return 0;
	b->data = bigger;
	memcpy(b->data + b->len, ptr, add);
	b->len += add;
	b->data[b->len] = '\0';
	return add;
}

enum handover { HANDOVER_STORED, HANDOVER_REJECTED, HANDOVER_RETRY };

static char *runs_url(const char *server)
{
	size_t n = strlen(server);
	char *url;

	while (n && server[n - 1] == '/')
		n--;
	if (n >= strlen(API_RUNS) &&
	    !strncmp(server + n - strlen(API_RUNS), API_RUNS, strlen(API_RUNS)))
		return strndup(server, n);
	return asprintf(&url, "%.*s" API_RUNS, (int)n, server) < 0 ? NULL : url;
}

static enum handover upload_server(const struct worker_opts *o,
				   const void *data, size_t size,
				   struct rtlab_err *err)
{
	struct curl_slist *hdrs = NULL, *h;
	enum handover ret = HANDOVER_RETRY;
	char *url = runs_url(o->server), *auth = NULL;
	struct buf resp = { 0 };
	json_t *j = NULL;
	long code = 0;
	CURLcode cc;
	CURL *c;

	c = curl_easy_init();
	if (!c || !url ||
	    asprintf(&auth, "Authorization: Bearer %s", o->token) < 0) {
		auth = NULL;
		rtlab_err_seterr(err, ENOMEM, "upload: out of memory");
		goto out;
	}
	h = curl_slist_append(hdrs, auth);
	if (h)
		hdrs = h;
	h = curl_slist_append(hdrs, "Content-Type: application/x-rtlab-bundle");
	if (h)
		hdrs = h;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)size);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, buf_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)UPLOAD_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		rtlab_err_set(err, "upload to %s: %s", url,
			      curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (code == 200 || code == 201) {
		ret = HANDOVER_STORED;
		goto out;
	}
	j = resp.data ? json_loads(resp.data, 0, NULL) : NULL;
	rtlab_err_set(err, "upload to %s: HTTP %ld: %s", url, code,
		      json_is_string(json_object_get(j, "error")) ?
			      json_string_value(json_object_get(j, "error")) :
			      "no error message");
	ret = code >= 400 && code < 500 ? HANDOVER_REJECTED : HANDOVER_RETRY;
out:
	json_decref(j);
	free(resp.data);
	curl_slist_free_all(hdrs);
	if (c)
		curl_easy_cleanup(c);
	free(auth);
	free(url);
	return ret;
}

static enum handover ingest_direct(PGconn *conn, const struct db_job *job,
				   const void *data, size_t size,
				   struct rtlab_err *err)
{
	struct ingest_result res;
	int ret;

	ret = ingest_bundle(conn, data, size, job->board_id, job->board, &res,
			    err);
	if (!ret)
		return HANDOVER_STORED;
	rtlab_err_prefix(err, "storing the bundle");
	return ret == -EINVAL || ret == -EACCES ? HANDOVER_REJECTED :
						  HANDOVER_RETRY;
}

/*
 * The board uploaded the run itself (BOARD_RUN_STORED): it must be in the
 * database under @run_id, on the job's board; the host's logs (@data, a
 * bundle whose manifest only names the run) become its artifacts.
 */
static enum handover stored_by_board(PGconn *conn, const struct db_job *job,
				     const char *run_id, const void *data,
				     size_t size, bool *complete, char *why,
				     size_t why_size, struct rtlab_err *err)
{
	enum handover h = HANDOVER_RETRY;
	struct bundle *b = NULL;
	const char *st, *board, *msg;
	json_t *run = NULL;
	char *text;
	int64_t id;
	size_t i;

	if (db_run_resolve(conn, run_id, &id, err) ||
	    db_run_get(conn, id, &run, err)) {
		rtlab_err_prefix(err,
				 "the board reported run %s uploaded, but it "
				 "is not in the database",
				 run_id);
		goto out;
	}
	st = json_string_value(json_object_get(run, "status"));
	board = json_string_value(json_object_get(run, "board"));
	msg = json_string_value(json_object_get(run, "error"));
	if (!st || !board || strcmp(board, job->board)) {
		rtlab_err_set(err, "run %s: stored for board %s, not %s",
			      run_id, board ? board : "?", job->board);
		h = HANDOVER_REJECTED;
		goto out;
	}
	*complete = !strcmp(st, "complete");
	snprintf(why, why_size, "run %s: %s%s%s", run_id, st, msg ? ": " : "",
		 msg ? msg : "");
	b = bundle_read_mem(data, size, err);
	if (!b) {
		rtlab_err_prefix(err, "the host's logs of run %s", run_id);
		goto out;
	}
	for (i = 0; i < b->nfiles; i++) {
		if (!strcmp(b->files[i].name, BUNDLE_MANIFEST))
			continue;
		text = strndup((const char *)b->files[i].data,
			       b->files[i].size);
		if (!text) {
			rtlab_err_seterr(err, ENOMEM, "out of memory");
			goto out;
		}
		if (db_artifact_put_text(conn, id, b->files[i].name,
					 artifact_content_type(b->files[i].name),
					 text, err)) {
			free(text);
			goto out;
		}
		free(text);
	}
	h = HANDOVER_STORED;
out:
	bundle_free(b);
	json_decref(run);
	return h;
}

/* The run's status and error from the bundle's manifest. */
static int bundle_outcome(const void *data, size_t size, char *run_id,
			  bool *complete, char *why, size_t why_size,
			  struct rtlab_err *err)
{
	const struct bundle_file *mf;
	struct manifest m = { 0 };
	struct bundle *b;
	int ret;

	b = bundle_read_mem(data, size, err);
	if (!b)
		return -EINVAL;
	mf = bundle_get(b, BUNDLE_MANIFEST);
	ret = mf ? manifest_parse((const char *)mf->data, mf->size, &m, err) :
		   rtlab_err_set(err, "bundle: no " BUNDLE_MANIFEST);
	if (!ret) {
		memcpy(run_id, m.run_id, sizeof(m.run_id));
		*complete = m.status == RUN_STATUS_COMPLETE;
		snprintf(why, why_size, "run %s: %s%s%s", m.run_id,
			 run_status_name(m.status), m.error ? ": " : "",
			 m.error ? m.error : "");
	}
	manifest_cleanup(&m);
	bundle_free(b);
	return ret;
}

/* -- one job --------------------------------------------------------------- */

enum outcome {
	OUTCOME_DONE,
	OUTCOME_FAILED,
	OUTCOME_REQUEUED,
	OUTCOME_ABANDONED,
	OUTCOME_LOST
};

static pid_t child_start(struct job_run *r)
{
	pid_t parent = getpid(), pid;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	child_setup(r, parent);
	child_run(r);
	_exit(1);
}

/* Wait for the child, drawing progress; stop it when asked or when the
 * lease is lost.  Return: OUTCOME_DONE when it exited by itself. */
static enum outcome child_wait(pid_t pid, struct lease *l, struct progress *p,
			       int *status)
{
	const struct timespec tick = { 0, 200 * 1000 * 1000 };
	enum outcome why = OUTCOME_DONE;
	bool signalled = false;
	int waited = 0;
	pid_t w;

	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (!signalled && (stop_requested || lease_lost(l))) {
			why = stop_requested ? OUTCOME_ABANDONED : OUTCOME_LOST;
			killpg(pid, SIGTERM);
			signalled = true;
		}
		/* An agent restores its knobs quickly; never wait forever. */
		if (signalled && ++waited == 150)
			killpg(pid, SIGKILL);
		progress_update(p);
		nanosleep(&tick, NULL);
	}
	return why;
}

static void job_log_outcome(const struct db_job *job, enum outcome oc,
			    const char *what)
{
	static const char *const names[] = { "done", "failed", "requeued",
					     "abandoned", "lost" };

	if (oc == OUTCOME_DONE)
		log_info("job %" PRId64 ": done (%s)", job->id, what);
	else
		log_warn("job %" PRId64 ": %s: %s", job->id, names[oc], what);
}

static enum outcome run_job(PGconn *conn, const struct worker_opts *o,
			    const char *worker, struct db_job *job,
			    struct rtlab_err *err)
{
	char tmpl[PATH_MAX], what[128], why[RTLAB_ERR_LEN];
	char note[RTLAB_ERR_LEN + 64];
	struct job_run r = { .o = o, .job = job, .worker = worker };
	struct rtlab_err e2 = { "" };
	enum outcome oc = OUTCOME_REQUEUED;
	enum handover h;
	struct lease l = { 0 };
	struct progress p;
	bool complete = false, gave_up = false, keep = o->keep, stored;
	void *data = NULL;
	size_t size = 0;
	char *errfile, *storedfile;
	int status = 0, ret;
	uuid_t uu;
	pid_t pid;

	log_info("job %" PRId64 ": claimed: board %s (%s), kernel %s, "
		 "testcase %s, %u s, attempt %d of %d",
		 job->id, job->board, job->board_kind, job->kernel,
		 job->testcase, job->duration_s, job->attempts,
		 job->max_attempts);
	uuid_generate_random(uu);
	uuid_unparse_lower(uu, r.run_id);
	snprintf(tmpl, sizeof(tmpl), "%s/rtlab-job-%" PRId64 ".XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", job->id);
	r.agent = rtlab_agent_path();
	r.work = mkdtemp(tmpl) ? strdup(tmpl) : NULL;
	r.bundle = r.work ? path_join(r.work, BUNDLE_FILE) : NULL;
	r.log = r.work ? path_join(r.work, CHILD_LOG_FILE) : NULL;
	if (!r.agent) {
		snprintf(why, sizeof(why),
			 "cannot find rtlab-agent (set "
			 "RTLAB_AGENT)");
		goto requeue;
	}
	if (!r.work || !r.bundle || !r.log) {
		snprintf(why, sizeof(why),
			 "cannot make a work directory "
			 "%.300s: %s",
			 tmpl, strerror(errno));
		goto requeue;
	}
	/* Fork before the lease thread exists, so the child inherits no
	 * lock another thread held. */
	pid = child_start(&r);
	if (pid < 0) {
		snprintf(why, sizeof(why), "fork: %s", strerror(errno));
		goto requeue;
	}
	ret = lease_start(&l, job->id, worker, o->lease_s, err);
	if (ret) {
		snprintf(why, sizeof(why), "%s", err->msg);
		killpg(pid, SIGTERM);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		goto requeue;
	}
	snprintf(what, sizeof(what), "job %" PRId64 " %s/%s", job->id,
		 job->board, job->testcase);
	progress_init(&p, what, job->duration_s);
	progress_phase(&p, "running");
	lease_phase(&l, "running");
	oc = child_wait(pid, &l, &p, &status);
	if (oc == OUTCOME_ABANDONED || oc == OUTCOME_LOST) {
		progress_done(&p);
		goto stopped;
	}
	storedfile = path_join(r.work, CHILD_STORED_FILE);
	stored = storedfile && !access(storedfile, F_OK);
	free(storedfile);
	data = read_file(r.bundle, &size);
	if (data && stored) {
		progress_phase(&p, "storing the logs");
		lease_phase(&l, "storing");
		h = stored_by_board(conn, job, r.run_id, data, size, &complete,
				    why, sizeof(why), &e2);
		progress_done(&p);
		goto handed;
	}
	if (!data) {
		errfile = path_join(r.work, CHILD_ERROR_FILE);
		why[0] = '\0';
		if (errfile)
			last_line(errfile, why, sizeof(why));
		free(errfile);
		if (!why[0]) {
			char tail[256];

			last_line(r.log, tail, sizeof(tail));
			snprintf(why, sizeof(why),
				 "no bundle (the %s board's run exited "
				 "with status %d%s%s)",
				 job->board_kind,
				 WIFEXITED(status) ? WEXITSTATUS(status) : 128,
				 tail[0] ? ": " : "", tail);
		}
		progress_done(&p);
		oc = OUTCOME_REQUEUED;
		goto requeue;
	}
	if (bundle_outcome(data, size, r.run_id, &complete, why, sizeof(why),
			   &e2)) {
		/* Let the server say what is wrong with it too. */
		snprintf(why, sizeof(why), "%s", e2.msg);
		complete = false;
	}
	progress_phase(&p, "uploading");
	lease_phase(&l, "uploading");
	h = o->server ? upload_server(o, data, size, &e2) :
			ingest_direct(conn, job, data, size, &e2);
	progress_done(&p);
handed:
	if (h != HANDOVER_STORED) {
		keep = true;
		snprintf(why, sizeof(why), "%s (bundle kept in %s)", e2.msg,
			 r.work);
		oc = OUTCOME_REQUEUED;
		goto requeue;
	}
	lease_stop(&l);
	ret = db_job_finish(conn, job->id, worker, r.run_id, !complete, why,
			    &e2);
	if (ret == -ESTALE) {
		oc = OUTCOME_LOST;
		snprintf(why, sizeof(why), "%s", e2.msg);
	} else if (ret) {
		oc = OUTCOME_LOST;
		snprintf(why, sizeof(why), "run %s stored, but %s", r.run_id,
			 e2.msg);
	} else {
		oc = complete ? OUTCOME_DONE : OUTCOME_FAILED;
		if (complete)
			snprintf(why, sizeof(why), "run %s", r.run_id);
	}
	job_log_outcome(job, oc, why);
	goto out;

requeue:
	lease_stop(&l);
	ret = db_job_requeue(conn, job->id, worker, why, false, &gave_up, &e2);
	if (ret) {
		oc = OUTCOME_LOST;
		snprintf(note, sizeof(note), "%s; %s", why, e2.msg);
	} else {
		oc = gave_up ? OUTCOME_FAILED : OUTCOME_REQUEUED;
		snprintf(note, sizeof(note), "%s%s", why,
			 gave_up ? " (no attempts left)" : "");
	}
	job_log_outcome(job, oc, note);
	goto out;

stopped:
	lease_stop(&l);
	if (oc == OUTCOME_ABANDONED) {
		ret = db_job_requeue(conn, job->id, worker, NULL, true, NULL,
				     &e2);
		snprintf(note, sizeof(note), "worker stopped; %s",
			 ret ? e2.msg : "the job is queued again");
	} else {
		snprintf(note, sizeof(note),
			 "another worker took it over "
			 "after the lease ran out; child stopped");
	}
	job_log_outcome(job, oc, note);
out:
	if (r.work && !keep)
		remove_tree(r.work);
	else if (r.work)
		log_info("job %" PRId64 ": work directory kept: %s", job->id,
			 r.work);
	free(data);
	free(r.log);
	free(r.bundle);
	free(r.work);
	free(r.agent);
	return oc;
}

/* -- the loop ------------------------------------------------------------- */

static void idle_wait(unsigned int poll_s)
{
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	unsigned int i;

	for (i = 0; i < poll_s * 10 && !stop_requested; i++)
		nanosleep(&tick, NULL);
}

int worker_run(const struct worker_opts *opts, struct worker_stats *stats,
	       struct rtlab_err *err)
{
	struct worker_opts o = *opts;
	struct worker_stats st = { 0 };
	char host[HOST_NAME_MAX + 1], *me = NULL;
	unsigned int expired;
	struct db_job job;
	PGconn *conn = NULL;
	enum outcome oc;
	int ret = 0;

	if (!o.lease_s)
		o.lease_s = WORKER_DEFAULT_LEASE_S;
	if (!o.poll_s)
		o.poll_s = WORKER_DEFAULT_POLL_S;
	if (o.server && (!o.token || !*o.token))
		return rtlab_err_set(err,
				     "--server %s: uploads need the "
				     "board's token (--token or "
				     "$RTLAB_TOKEN)",
				     o.server);
	if (o.server && !o.board)
		return rtlab_err_set(err,
				     "--server %s: a token belongs to "
				     "one board: give it with --board",
				     o.server);
	if (o.name) {
		me = strdup(o.name);
	} else {
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = '\0';
		if (asprintf(&me, "%s:%d", host, (int)getpid()) < 0)
			me = NULL;
	}
	if (!me)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		free(me);
		return rtlab_err_seterr(err, EIO, "libcurl failed to start");
	}
	conn = db_connect(err);
	if (!conn) {
		ret = -EIO;
		goto out;
	}
	log_info("worker %s: %s jobs on %s, lease %u s, bundles to %s", me,
		 o.mode == WORKER_MODE_ONCE  ? "one of the" :
		 o.mode == WORKER_MODE_DRAIN ? "draining the" :
					       "waiting for",
		 o.board ? o.board : "any board with a driver", o.lease_s,
		 o.server ? o.server : "the database");
	while (!stop_requested) {
		ret = db_job_expire(conn, &expired, err);
		if (ret)
			break;
		if (expired)
			log_warn("worker %s: %u job(s) failed: their lease ran "
				 "out on the last attempt",
				 me, expired);
		ret = db_job_claim(conn, me, o.board, board_kind_names(true),
				   o.lease_s, &job, err);
		if (ret == -ENOENT) {
			ret = 0;
			/* A bisection's running job may queue its next
			 * step when it ends: draining waits for that. */
			if (o.mode == WORKER_MODE_DRAIN &&
			    bisect_running(conn, o.board)) {
				idle_wait(o.poll_s);
				continue;
			}
			if (o.mode != WORKER_MODE_LOOP)
				break;
			idle_wait(o.poll_s);
			continue;
		}
		if (ret)
			break;
		oc = run_job(conn, &o, me, &job, err);
		/* A bisection's next runs are queued as its jobs end. */
		if (oc == OUTCOME_DONE || oc == OUTCOME_FAILED)
			bisect_after_job(conn, job.id);
		/* A health job's verdict may take its board out of service. */
		if (job.health && (oc == OUTCOME_DONE || oc == OUTCOME_FAILED))
			health_after_job(conn, &job);
		db_job_cleanup(&job);
		st.done += oc == OUTCOME_DONE;
		st.failed += oc == OUTCOME_FAILED;
		st.requeued += oc == OUTCOME_REQUEUED;
		if (oc == OUTCOME_ABANDONED) {
			st.abandoned = true;
			break;
		}
		if (o.mode == WORKER_MODE_ONCE)
			break;
	}
out:
	if (stats)
		*stats = st;
	db_disconnect(conn);
	curl_global_cleanup();
	free(me);
	return ret;
}
