// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/load: the server under a farm's load and an attacker's.  N boards
 * (threads, each from its own loopback address, as each board is its own
 * host) upload distinct bundles and, like the agent, retry what was not
 * acknowledged; meanwhile M slow connections trickle a request's headers
 * a byte a second from one address (slowloris), a reader fetches plots
 * and run lists, and a prober asks /healthz every 20 ms.  With
 * --crash-cmd, that command (which kills PostgreSQL and the server and
 * starts them again) runs once --crash-after uploads are acknowledged.
 *
 * At the end every acknowledged run is looked up in the database: lost
 * (acknowledged, not stored) and duplicated runs must both be 0.  Prints
 * figures; asserts nothing.  bench/load.sh sets up the server and boards.
 *
 *   load --url URL --boards FILE --conninfo CONNINFO [--uploads K]
 *        [--slow M] [--readers R] [--crash-cmd CMD --crash-after N]
 */

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "strbuf.h"
#include "common/bench-bundle.h"

#define MAX_BOARDS 1000
#define HEALTH_EVERY_MS 20
/* How long a board keeps retrying one bundle before giving it up. */
#define UPLOAD_GIVE_UP_S 300

struct board {
	char name[65];
	char token[129];
	char addr[32]; /* source address of its uploads */
	pthread_t thread;
};

/* What every thread adds to, under @lock. */
static struct {
	pthread_mutex_t lock;
	double *upload_ms; /* acknowledged attempts */
	size_t nupload, upload_cap;
	double *health_ms;
	size_t nhealth, health_cap;
	unsigned long health_failed;
	char (*acked)[37];
	size_t nacked, acked_cap;
	unsigned long attempts, retries, refused_4xx, given_up;
	unsigned long reads_ok, reads_busy, reads_other;
	unsigned long slow_opened, slow_closed_by_server, slow_open_max;
	bool crashed;
	double crash_at_s, crash_s;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static volatile int uploads_done;
static const char *url_base, *crash_cmd;
static unsigned int uploads_per_board = 5, crash_after;
static char *ct_json;
static double t_start;

static int push_double(double **v, size_t *n, size_t *cap, double x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		double *b = realloc(*v, c * sizeof(**v));

		if (!b)
			return -ENOMEM;
		*v = b;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static int push_acked(const char *uuid)
{
	if (g.nacked == g.acked_cap) {
		size_t c = g.acked_cap ? g.acked_cap * 2 : 1024;
		char(*b)[37] = realloc(g.acked, c * sizeof(*b));

		if (!b)
			return -ENOMEM;
		g.acked = b;
		g.acked_cap = c;
	}
	memcpy(g.acked[g.nacked++], uuid, 37);
	return 0;
}

static size_t discard(char *p, size_t s, size_t n, void *u)
{
	(void)p;
	(void)u;
	return s * n;
}

static void *crash_main(void *arg)
{
	double t0;
	int rc;

	(void)arg;
	t0 = clock_mono_s();
	rc = system(crash_cmd);
	pthread_mutex_lock(&g.lock);
	g.crash_s = clock_mono_s() - t0;
	pthread_mutex_unlock(&g.lock);
	if (rc)
		fprintf(stderr, "load: crash command exited %d\n", rc);
	return NULL;
}

/* After the acknowledgement that reaches --crash-after, once. */
static void maybe_crash(void)
{
	static pthread_t t;
	bool go = false;

	pthread_mutex_lock(&g.lock);
	if (crash_cmd && !g.crashed && g.nacked >= crash_after) {
		g.crashed = go = true;
		g.crash_at_s = clock_mono_s() - t_start;
	}
	pthread_mutex_unlock(&g.lock);
	if (go && pthread_create(&t, NULL, crash_main, NULL) == 0)
		pthread_detach(t);
}

/* One bundle, retried like the agent's spool until it is acknowledged,
 * refused for good (4xx) or UPLOAD_GIVE_UP_S have passed. */
static void upload_one(CURL *c, struct board *b)
{
	char run_id[37];
	void *data = NULL;
	size_t size = 0;
	double t0, first = clock_mono_s();
	unsigned int backoff_ms = 100;
	long status;
	bool done;

	if (bench_bundle_make(b->name, "bench-load", ct_json, run_id, &data,
			      &size))
		return;
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)size);
	for (;;) {
		status = 0;
		t0 = clock_mono_s();
		if (curl_easy_perform(c) == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		done = true;
		pthread_mutex_lock(&g.lock);
		g.attempts++;
		if (status >= 200 && status < 300) {
			push_double(&g.upload_ms, &g.nupload, &g.upload_cap,
				    (clock_mono_s() - t0) * 1e3);
			push_acked(run_id);
		} else if (status >= 400 && status < 500) {
			g.refused_4xx++;
			fprintf(stderr, "load: %s: upload %s refused: %ld\n",
				b->name, run_id, status);
		} else if (clock_mono_s() - first > UPLOAD_GIVE_UP_S) {
			g.given_up++;
		} else {
			g.retries++;
			done = false;
		}
		pthread_mutex_unlock(&g.lock);
		if (status >= 200 && status < 300)
			maybe_crash();
		if (done)
			break;
		usleep(backoff_ms * 1000);
		if (backoff_ms < 2000)
			backoff_ms *= 2;
	}
	free(data);
}

static void *board_main(void *arg)
{
	struct board *b = arg;
	CURL *c = curl_easy_init();
	struct curl_slist *hdrs = NULL;
	char url[512], auth[256], iface[48];
	unsigned int i;

	if (!c)
		return NULL;
	snprintf(url, sizeof(url), "%s/api/v1/runs", url_base);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", b->token);
	snprintf(iface, sizeof(iface), "host!%s", b->addr);
	hdrs = curl_slist_append(hdrs, auth);
	hdrs = curl_slist_append(hdrs,
				 "Content-Type: application/x-rtlab-bundle");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_INTERFACE, iface);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	for (i = 0; i < uploads_per_board; i++)
		upload_one(c, b);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	return NULL;
}

static void *health_main(void *arg)
{
	CURL *c = curl_easy_init();
	char url[512];

	(void)arg;
	if (!c)
		return NULL;
	snprintf(url, sizeof(url), "%s/healthz", url_base);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	while (!uploads_done) {
		double t0 = clock_mono_s(), ms;
		long status = 0;

		if (curl_easy_perform(c) == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		ms = (clock_mono_s() - t0) * 1e3;
		pthread_mutex_lock(&g.lock);
		/* During a crash the answer is 503 or no answer: the prober
		 * counts it, the latency figure is of answers given. */
		if (status == 200)
			push_double(&g.health_ms, &g.nhealth, &g.health_cap,
				    ms);
		else
			g.health_failed++;
		pthread_mutex_unlock(&g.lock);
		if (ms < HEALTH_EVERY_MS)
			usleep((HEALTH_EVERY_MS - ms) * 1000);
	}
	curl_easy_cleanup(c);
	return NULL;
}

/* Reads that cost the server work: run lists and per-run plots. */
static void *reader_main(void *arg)
{
	CURL *c = curl_easy_init();
	char url[600];
	unsigned long k = 0;

	(void)arg;
	if (!c)
		return NULL;
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	while (!uploads_done) {
		char run[37] = "";
		long status = 0;

		pthread_mutex_lock(&g.lock);
		if (g.nacked)
			memcpy(run, g.acked[k % g.nacked], sizeof(run));
		pthread_mutex_unlock(&g.lock);
		if (k++ % 2 == 0 || !run[0])
			snprintf(url, sizeof(url), "%s/api/v1/runs?limit=50",
				 url_base);
		else
			snprintf(url, sizeof(url), "%s/api/v1/runs/%s/plot.svg",
				 url_base, run);
		curl_easy_setopt(c, CURLOPT_URL, url);
		if (curl_easy_perform(c) == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		pthread_mutex_lock(&g.lock);
		if (status >= 200 && status < 300)
			g.reads_ok++;
		else if (status == 503)
			g.reads_busy++;
		else
			g.reads_other++;
		pthread_mutex_unlock(&g.lock);
		if (status != 200)
			usleep(100 * 1000);
	}
	curl_easy_cleanup(c);
	return NULL;
}

/* -- slowloris ------------------------------------------------------------- */

struct slow {
	unsigned int n;
	const char *addr;
	struct sockaddr_in to;
};

static int slow_open(const struct slow *s)
{
	static const char head[] = "POST /api/v1/runs HTTP/1.1\r\n"
				   "Host: rtlab\r\n";
	struct sockaddr_in from = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	inet_pton(AF_INET, s->addr, &from.sin_addr);
	if (bind(fd, (struct sockaddr *)&from, sizeof(from)) ||
	    connect(fd, (const struct sockaddr *)&s->to, sizeof(s->to)) ||
	    send(fd, head, sizeof(head) - 1, MSG_NOSIGNAL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Connections from @s->addr the server holds open now: its side of them,
 * ESTABLISHED in /proc/net/tcp. */
static unsigned long slow_held(const struct slow *s)
{
	FILE *f = fopen("/proc/net/tcp", "r");
	struct in_addr from;
	unsigned int lport, lip, rip, st;
	unsigned long n = 0;
	char line[256];

	if (!f)
		return 0;
	inet_pton(AF_INET, s->addr, &from);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %*u: %x:%x %x:%*x %x", &lip, &lport, &rip,
			   &st) == 4 &&
		    lport == ntohs(s->to.sin_port) && rip == from.s_addr &&
		    st == 1)
			n++;
	fclose(f);
	return n;
}

/* Keep @n connections trickling a byte a second; reopen what the server
 * closes, as an attacker would. */
static void *slow_main(void *arg)
{
	struct slow *s = arg;
	int *fd = calloc(s->n, sizeof(*fd));
	unsigned int i;
	unsigned long held;

	if (!fd)
		return NULL;
	for (i = 0; i < s->n; i++)
		fd[i] = -1;
	while (!uploads_done) {
		for (i = 0; i < s->n && !uploads_done; i++) {
			if (fd[i] >= 0 &&
			    send(fd[i], "X", 1, MSG_NOSIGNAL | MSG_DONTWAIT) <
				    0 &&
			    errno != EAGAIN) {
				close(fd[i]);
				fd[i] = -1;
				pthread_mutex_lock(&g.lock);
				g.slow_closed_by_server++;
				pthread_mutex_unlock(&g.lock);
			}
			if (fd[i] < 0) {
				fd[i] = slow_open(s);
				if (fd[i] >= 0) {
					pthread_mutex_lock(&g.lock);
					g.slow_opened++;
					pthread_mutex_unlock(&g.lock);
				}
			}
		}
		held = slow_held(s);
		pthread_mutex_lock(&g.lock);
		if (held > g.slow_open_max)
			g.slow_open_max = held;
		pthread_mutex_unlock(&g.lock);
		sleep(1);
	}
	for (i = 0; i < s->n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(fd);
	return NULL;
}

/* -- the count at the end ------------------------------------------------ */

/* Acknowledged runs not in the database, and uuids stored twice. */
static int count_lost(const char *conninfo, long *lost, long *dup, long *stored)
{
	PGconn *db = PQconnectdb(conninfo);
	struct strbuf arr = { 0 };
	const char *param[1];
	PGresult *r;
	size_t i;
	int ret = -1;

	if (PQstatus(db) != CONNECTION_OK) {
		fprintf(stderr, "load: %s", PQerrorMessage(db));
		goto out;
	}
	strbuf_add(&arr, "{", 1);
	for (i = 0; i < g.nacked; i++)
		strbuf_addf(&arr, "%s%s", i ? "," : "", g.acked[i]);
	strbuf_add(&arr, "}", 1);
	param[0] = arr.buf;
	r = PQexecParams(
		db,
		"SELECT (SELECT count(*) FROM unnest($1::uuid[]) AS a(u)"
		"         WHERE NOT EXISTS (SELECT 1 FROM runs WHERE uuid = a.u)),"
		"       (SELECT count(*) - count(DISTINCT u)"
		"          FROM unnest($1::uuid[]) AS a(u)),"
		"       (SELECT count(*) FROM runs r JOIN testcases t"
		"            ON t.id = r.testcase_id WHERE t.name = 'bench-load')",
		1, NULL, param, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		fprintf(stderr, "load: counting: %s", PQerrorMessage(db));
	} else {
		*lost = atol(PQgetvalue(r, 0, 0));
		*dup = atol(PQgetvalue(r, 0, 1));
		*stored = atol(PQgetvalue(r, 0, 2));
		ret = 0;
	}
	PQclear(r);
out:
	strbuf_cleanup(&arr);
	PQfinish(db);
	return ret;
}

static int load_boards(const char *path, struct board **out, size_t *n)
{
	FILE *f = fopen(path, "r");
	struct board *b;
	char line[512];
	size_t k = 0;

	if (!f) {
		fprintf(stderr, "load: %s: %s\n", path, strerror(errno));
		return -1;
	}
	b = calloc(MAX_BOARDS, sizeof(*b));
	while (b && k < MAX_BOARDS && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%64s %128s", b[k].name, b[k].token) != 2)
			continue;
		/* 127.0.2.1, 127.0.2.2, ...: one address per board */
		snprintf(b[k].addr, sizeof(b[k].addr), "127.0.%zu.%zu",
			 2 + k / 250, 1 + k % 250);
		k++;
	}
	fclose(f);
	if (!b || !k) {
		fprintf(stderr, "load: %s: no 'NAME TOKEN' lines\n", path);
		free(b);
		return -1;
	}
	*out = b;
	*n = k;
	return 0;
}

/* Nearest-rank quantile @p of the sorted @v. */
static double pct(const double *v, size_t n, double p)
{
	size_t k = (size_t)(p * n + 0.999999);

	if (!n)
		return 0;
	return v[k ? (k > n ? n : k) - 1 : 0];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: load --url URL --boards FILE --conninfo CONNINFO\n"
		"            [--uploads K] [--slow M] [--readers R]\n"
		"            [--crash-cmd CMD --crash-after N]\n"
		"  FILE: one 'NAME TOKEN' line per board (up to %d)\n"
		"  --uploads K      bundles per board (5)\n"
		"  --slow M         slow connections from 127.0.1.1 (1000)\n"
		"  --readers R      threads reading lists and plots (1)\n"
		"  --crash-cmd CMD  run once, after --crash-after acks\n",
		MAX_BOARDS);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "boards", required_argument, NULL, 'b' },
		{ "conninfo", required_argument, NULL, 'c' },
		{ "uploads", required_argument, NULL, 'k' },
		{ "slow", required_argument, NULL, 's' },
		{ "readers", required_argument, NULL, 'r' },
		{ "crash-cmd", required_argument, NULL, 'C' },
		{ "crash-after", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *boards_file = NULL, *conninfo = NULL;
	struct slow slow = { .n = 1000, .addr = "127.0.1.1" };
	unsigned int nreaders = 1, i;
	pthread_t health, slow_t, *readers;
	struct board *b = NULL;
	size_t nb = 0;
	long lost = -1, dup = -1, stored = -1;
	unsigned int port = 0;
	double elapsed;
	int o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'u':
			url_base = optarg;
			break;
		case 'b':
			boards_file = optarg;
			break;
		case 'c':
			conninfo = optarg;
			break;
		case 'k':
			uploads_per_board = strtoul(optarg, NULL, 10);
			break;
		case 's':
			slow.n = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			nreaders = strtoul(optarg, NULL, 10);
			break;
		case 'C':
			crash_cmd = optarg;
			break;
		case 'A':
			crash_after = strtoul(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!url_base || !boards_file || !conninfo ||
	    sscanf(url_base, "http://127.0.0.1:%u", &port) != 1) {
		fprintf(stderr, "load: --url http://127.0.0.1:PORT, --boards "
				"and --conninfo are required\n");
		usage(stderr);
		return 2;
	}
	if (load_boards(boards_file, &b, &nb))
		return 1;
	slow.to.sin_family = AF_INET;
	slow.to.sin_port = htons(port);
	inet_pton(AF_INET, "127.0.0.1", &slow.to.sin_addr);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	ct_json = bench_cyclictest_json();
	readers = calloc(nreaders ? nreaders : 1, sizeof(*readers));
	if (!ct_json || !readers)
		return 1;

	printf("load: %zu boards x %u uploads, %u slow connections, "
	       "%u reader(s)%s\n",
	       nb, uploads_per_board, slow.n, nreaders,
	       crash_cmd ? ", one crash" : "");
	fflush(stdout);
	t_start = clock_mono_s();
	pthread_create(&health, NULL, health_main, NULL);
	if (slow.n)
		pthread_create(&slow_t, NULL, slow_main, &slow);
	for (i = 0; i < nreaders; i++)
		pthread_create(&readers[i], NULL, reader_main, NULL);
	for (i = 0; i < nb; i++)
		pthread_create(&b[i].thread, NULL, board_main, &b[i]);
	for (i = 0; i < nb; i++)
		pthread_join(b[i].thread, NULL);
	elapsed = clock_mono_s() - t_start;
	uploads_done = 1;
	pthread_join(health, NULL);
	if (slow.n)
		pthread_join(slow_t, NULL);
	for (i = 0; i < nreaders; i++)
		pthread_join(readers[i], NULL);
	/* a crash still restarting: the count needs the database back */
	while (g.crashed && g.crash_s == 0)
		usleep(100 * 1000);
	count_lost(conninfo, &lost, &dup, &stored);

	qsort(g.upload_ms, g.nupload, sizeof(double), cmp_double);
	qsort(g.health_ms, g.nhealth, sizeof(double), cmp_double);
	printf("uploads:   %zu acknowledged in %.1f s: %.1f uploads/s "
	       "(%lu attempts, %lu retried, %lu refused 4xx, %lu given up)\n",
	       g.nacked, elapsed, g.nacked / elapsed, g.attempts, g.retries,
	       g.refused_4xx, g.given_up);
	printf("upload latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
	       pct(g.upload_ms, g.nupload, 0.5),
	       pct(g.upload_ms, g.nupload, 0.99),
	       g.nupload ? g.upload_ms[g.nupload - 1] : 0);
	printf("/healthz:  %zu answered, p50 %.1f ms, p99 %.1f ms, max "
	       "%.1f ms; %lu not answered 200\n",
	       g.nhealth, pct(g.health_ms, g.nhealth, 0.5),
	       pct(g.health_ms, g.nhealth, 0.99),
	       g.nhealth ? g.health_ms[g.nhealth - 1] : 0, g.health_failed);
	if (slow.n)
		printf("slowloris: %u kept trying from %s: %lu opened, %lu "
		       "closed by the server, at most %lu held open by it\n",
		       slow.n, slow.addr, g.slow_opened,
		       g.slow_closed_by_server, g.slow_open_max);
	printf("reads:     %lu answered, %lu busy (503), %lu other\n",
	       g.reads_ok, g.reads_busy, g.reads_other);
	if (crash_cmd)
		printf("crash:     after %.1f s; PostgreSQL and the server were "
		       "back after %.1f s\n",
		       g.crash_at_s, g.crash_s);
	printf("lost:      %ld acknowledged but not stored (must be 0)\n",
	       lost);
	printf("duplicated: %ld (must be 0); %ld runs stored for %zu "
	       "acknowledged\n",
	       dup, stored, g.nacked);
	return lost == 0 && dup == 0 ? 0 : 1;
}
