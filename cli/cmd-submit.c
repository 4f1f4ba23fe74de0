// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab submit: send a built kernel (a Debian package, or a bzImage with
 * its .config and modules tarball) to a lab server as a developer
 * submission, or a tree reference to build; show a submission's state.
 * See docs/farm.md.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <jansson.h>

#include "commands.h"
#include "common.h"

static void submit_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab submit --server URL [--token T] "
		"(--deb FILE | --image BZIMAGE --config FILE\n"
		"                    --modules TARBALL | --git URL --ref REF "
		"[--config-fragment FILE])\n"
		"                    --board B... --testcase T... "
		"[--baseline K] [--tree TREE]\n"
		"                    [--runs N] [--duration S]\n"
		"       rtlab submit --server URL [--token T] --status ID\n\n"
		"Send a kernel to the lab: its runs on the boards and testcases "
		"given, and\n"
		"its verdict against the baseline (default: the tree's latest "
		"tested\n"
		"kernel).  Prints the submission's id and where to follow it; "
		"--status\n"
		"prints a submission (state, runs, verdicts) as JSON.\n\n"
		"  -s, --server URL         the lab server\n"
		"  -T, --token T            a developer token (default "
		"$RTLAB_TOKEN)\n"
		"      --deb FILE           a Debian kernel package "
		"(linux-image-*.deb)\n"
		"      --image BZIMAGE      a built x86 bzImage, with "
		"--config (its .config)\n"
		"      --config FILE        and --modules (a tar of "
		"lib/modules/RELEASE/)\n"
		"      --modules TARBALL\n"
		"      --git URL --ref REF  a commit to build, as --tree "
		"(a git tree of the lab)\n"
		"      --config-fragment FILE\n"
		"  -b, --board B            a board to run it on (repeat for "
		"more)\n"
		"  -t, --testcase T         a testcase (repeat for more)\n"
		"      --baseline K         the kernel to compare with (a "
		"definition name or\n"
		"                           PACKAGE=VERSION)\n"
		"      --tree TREE          the tree it belongs to "
		"(rtlab tree list)\n"
		"  -n, --runs N             runs per side at the first look, "
		"2 to 100 (default 5)\n"
		"  -d, --duration S         seconds per run (default: the "
		"testcase's)\n"
		"      --status ID          show submission ID\n\n"
		"Exit status: 0 accepted (or shown), 1 refused or "
		"unreachable, 2 usage.\n");
}

static int add_file(struct archive *a, const char *name, const char *path)
{
	struct archive_entry *e = archive_entry_new();
	char buf[65536];
	struct stat st;
	size_t n;
	FILE *f = fopen(path, "rb");
	int ret = -1;

	if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "rtlab submit: %s: %s\n", path,
			f ? "not a regular file" : strerror(errno));
		goto out;
	}
	archive_entry_set_pathname(e, name);
	archive_entry_set_size(e, st.st_size);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	if (archive_write_header(a, e) != ARCHIVE_OK)
		goto bad;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (archive_write_data(a, buf, n) < 0)
			goto bad;
	ret = ferror(f) ? -1 : 0;
	goto out;
bad:
	fprintf(stderr, "rtlab submit: archiving %s: %s\n", path,
		archive_error_string(a));
out:
	if (f)
		fclose(f);
	archive_entry_free(e);
	return ret;
}

static size_t collect(char *p, size_t size, size_t n, void *cls)
{
	FILE *f = cls;

	return fwrite(p, size, n, f);
}

/* POST (or GET when @body and @file are NULL); *@resp malloc'd. */
static int request(const char *url, const char *token, const char *ctype,
		   const char *body, FILE *file, long *status, char **resp)
{
	struct curl_slist *h = NULL;
	char auth[600], hdr[128];
	size_t rlen = 0;
	FILE *out = open_memstream(resp, &rlen);
	CURL *c = curl_easy_init();
	CURLcode rc;
	int ret = 0;

	if (!c || !out)
		return -ENOMEM;
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
	h = curl_slist_append(h, auth);
	if (ctype) {
		snprintf(hdr, sizeof(hdr), "Content-Type: %s", ctype);
		h = curl_slist_append(h, hdr);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	} else if (file) {
		fseek(file, 0, SEEK_END);
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)ftell(file));
		rewind(file);
		curl_easy_setopt(c, CURLOPT_READDATA, file);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	if (rc != CURLE_OK) {
		fprintf(stderr, "rtlab submit: %s: %s\n", url,
			curl_easy_strerror(rc));
		ret = -EIO;
	}
	fclose(out);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return ret;
}

/* The server's answer: its JSON, or its "error". */
static int answer(const char *server, long status, const char *resp,
		  bool show_json)
{
	json_t *j = json_loads(resp ? resp : "", 0, NULL);
	const char *e = json_string_value(json_object_get(j, "error"));
	int ret = 1;

	if (status >= 200 && status < 300 && j) {
		if (show_json) {
			json_dumpf(j, stdout, JSON_INDENT(2));
			putchar('\n');
		} else {
			size_t n = json_array_size(json_object_get(j, "jobs"));

			json_int_t id =
				json_integer_value(json_object_get(j, "id"));

			printf("submission %lld: %s, %zu jobs queued; follow it "
			       "at %s/submissions/%lld (JSON: %s%s)\n",
			       (long long)id,
			       json_string_value(json_object_get(j, "state")),
			       n, server, (long long)id, server,
			       json_string_value(json_object_get(j, "url")));
		}
		ret = 0;
	} else {
		fprintf(stderr, "rtlab submit: refused (HTTP %ld): %s\n",
			status, e ? e : (resp ? resp : ""));
	}
	json_decref(j);
	return ret;
}

int cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "token", required_argument, NULL, 'T' },
		{ "deb", required_argument, NULL, 'D' },
		{ "image", required_argument, NULL, 'I' },
		{ "config", required_argument, NULL, 'C' },
		{ "modules", required_argument, NULL, 'M' },
		{ "git", required_argument, NULL, 'G' },
		{ "ref", required_argument, NULL, 'R' },
		{ "config-fragment", required_argument, NULL, 'F' },
		{ "board", required_argument, NULL, 'b' },
		{ "testcase", required_argument, NULL, 't' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "tree", required_argument, NULL, 'E' },
		{ "runs", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "status", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *server = NULL, *token = getenv("RTLAB_TOKEN");
	const char *deb = NULL, *image = NULL, *config = NULL, *mods = NULL;
	const char *git = NULL, *ref = NULL, *frag = NULL, *status_id = NULL;
	json_t *req = json_object(), *boards = json_array(),
	       *tcs = json_array();
	unsigned int runs = 0, dur = 0;
	char url[1024], *resp = NULL, *body = NULL, tmpl[4096];
	struct archive *a = NULL;
	FILE *tar = NULL;
	long status = 0;
	int opt, fd, ret = 1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "s:T:b:t:n:d:h", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 's':
			server = optarg;
			break;
		case 'T':
			token = optarg;
			break;
		case 'D':
			deb = optarg;
			break;
		case 'I':
			image = optarg;
			break;
		case 'C':
			config = optarg;
			break;
		case 'M':
			mods = optarg;
			break;
		case 'G':
			git = optarg;
			break;
		case 'R':
			ref = optarg;
			break;
		case 'F':
			frag = optarg;
			break;
		case 'b':
			json_array_append_new(boards, json_string(optarg));
			break;
		case 't':
			json_array_append_new(tcs, json_string(optarg));
			break;
		case 'B':
			json_object_set_new(req, "baseline",
					    json_string(optarg));
			break;
		case 'E':
			json_object_set_new(req, "tree", json_string(optarg));
			break;
		case 'n':
			if (opt_uint("submit", "--runs", optarg, 2, 100, &runs))
				goto usage;
			json_object_set_new(req, "runs", json_integer(runs));
			break;
		case 'd':
			if (opt_uint("submit", "--duration", optarg, 1, 604800,
				     &dur))
				goto usage;
			json_object_set_new(req, "duration_s",
					    json_integer(dur));
			break;
		case 'S':
			status_id = optarg;
			break;
		case 'h':
			submit_usage(stdout);
			ret = 0;
			goto out;
		default:
			goto usage;
		}
	}
	if (optind != argc || !server) {
		fprintf(stderr, "rtlab submit: %s\n",
			optind != argc ? "unexpected argument" :
					 "--server is required");
		goto usage;
	}
	if (!token || !*token) {
		fprintf(stderr, "rtlab submit: no token: give --token or set "
				"RTLAB_TOKEN (a developer token)\n");
		goto usage;
	}
	if (status_id) {
		snprintf(url, sizeof(url), "%s/api/v1/submissions/%s", server,
			 status_id);
		if (!request(url, token, NULL, NULL, NULL, &status, &resp))
			ret = answer(server, status, resp, true);
		goto out;
	}
	if (!!deb + !!image + !!git != 1 || (image && (!config || !mods)) ||
	    (!image && (config || mods)) || (!git && (ref || frag)) ||
	    (git && !ref)) {
		fprintf(stderr, "rtlab submit: give one kernel: --deb FILE, "
				"or --image with --config and --modules, or "
				"--git with --ref\n");
		goto usage;
	}
	if (!json_array_size(boards) || !json_array_size(tcs)) {
		fprintf(stderr, "rtlab submit: --board and --testcase are "
				"required\n");
		goto usage;
	}
	json_object_set(req, "boards", boards);
	json_object_set(req, "testcases", tcs);
	snprintf(url, sizeof(url), "%s/api/v1/submissions", server);
	if (git) {
		json_object_set_new(req, "kind", json_string("tree"));
		json_object_set_new(req, "git", json_string(git));
		json_object_set_new(req, "ref", json_string(ref));
		if (frag) {
			FILE *f = fopen(frag, "r");
			char text[65536];
			size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;

			if (!f) {
				fprintf(stderr, "rtlab submit: %s: %s\n", frag,
					strerror(errno));
				goto out;
			}
			fclose(f);
			text[n] = '\0';
			json_object_set_new(req, "config_fragment",
					    json_string(text));
		}
		body = json_dumps(req, JSON_COMPACT);
		if (body && !request(url, token, "application/json", body, NULL,
				     &status, &resp))
			ret = answer(server, status, resp, false);
		goto out;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/rtlab-submit.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(tmpl);
	if (fd < 0 || !(tar = fdopen(fd, "w+b"))) {
		fprintf(stderr, "rtlab submit: %s: %s\n", tmpl,
			strerror(errno));
		goto out;
	}
	unlink(tmpl);
	body = json_dumps(req, JSON_COMPACT);
	a = archive_write_new();
	if (!body || !a || archive_write_set_format_pax_restricted(a) ||
	    archive_write_open_FILE(a, tar) != ARCHIVE_OK) {
		fprintf(stderr, "rtlab submit: making the archive failed\n");
		goto out;
	}
	{
		struct archive_entry *e = archive_entry_new();

		archive_entry_set_pathname(e, "submission.json");
		archive_entry_set_size(e, (la_int64_t)strlen(body));
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		if (archive_write_header(a, e) != ARCHIVE_OK ||
		    archive_write_data(a, body, strlen(body)) < 0) {
			archive_entry_free(e);
			goto out;
		}
		archive_entry_free(e);
	}
	if (deb ? add_file(a, "kernel.deb", deb) :
		  add_file(a, "bzImage", image) ||
			    add_file(a, "config", config) ||
			    add_file(a,
				     strstr(mods, ".xz") ? "modules.tar.xz" :
				     strstr(mods, ".gz") ||
						     strstr(mods, ".tgz") ?
							   "modules.tar.gz" :
							   "modules.tar",
				     mods))
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK) {
		fprintf(stderr, "rtlab submit: %s\n", archive_error_string(a));
		goto out;
	}
	fflush(tar);
	if (!request(url, token, "application/x-tar", NULL, tar, &status,
		     &resp))
		ret = answer(server, status, resp, false);
	goto out;
usage:
	submit_usage(stderr);
	ret = EXIT_USAGE;
out:
	if (a)
		archive_write_free(a);
	if (tar)
		fclose(tar);
	json_decref(req);
	json_decref(boards);
	json_decref(tcs);
	free(body);
	free(resp);
	return ret;
}
