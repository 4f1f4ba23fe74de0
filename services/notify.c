// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Notifications: one email thread and one webhook call per change of a
 * subject's state, through libcurl (SMTP to the configured relay, JSON
 * POST to the webhook).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "../db/db-farm.h"
#include "notify.h"
#include "strbuf.h"

struct upload {
	const char *data;
	size_t len, off;
};

static size_t upload_read(char *buf, size_t size, size_t n, void *cls)
{
	struct upload *u = cls;
	size_t want = size * n, left = u->len - u->off;

	if (want > left)
		want = left;
	memcpy(buf, u->data + u->off, want);
	u->off += want;
	return want;
}

static int send_mail(const struct rtlab_config *cfg, const char *from,
		     const char *const *rcpt, const char *msg,
		     struct rtlab_err *err)
{
	struct upload u = { msg, strlen(msg), 0 };
	struct curl_slist *to = NULL;
	char errbuf[CURL_ERROR_SIZE] = "", addr[340];
	CURL *c = curl_easy_init();
	CURLcode rc;
	size_t i;
	int ret = 0;

	if (!c)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	for (i = 0; rcpt[i]; i++) {
		struct curl_slist *n;

		snprintf(addr, sizeof(addr), "<%s>", rcpt[i]);
		n = curl_slist_append(to, addr);
		if (!n) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			goto out;
		}
		to = n;
	}
	snprintf(addr, sizeof(addr), "<%s>", from);
	curl_easy_setopt(c, CURLOPT_URL, cfg->smtp_url);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, addr);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, to);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, upload_read);
	curl_easy_setopt(c, CURLOPT_READDATA, &u);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		ret = rtlab_err_seterr(err, EIO, "mail relay %s: %s",
				       cfg->smtp_url,
				       *errbuf ? errbuf :
						 curl_easy_strerror(rc));
out:
	curl_slist_free_all(to);
	curl_easy_cleanup(c);
	return ret;
}

static int send_webhook(const char *url, const char *body,
			struct rtlab_err *err)
{
	struct curl_slist *h = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *c = curl_easy_init();
	long status = 0;
	CURLcode rc;
	int ret = 0;

	if (!c)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	h = curl_slist_append(NULL, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK)
		ret = rtlab_err_seterr(err, EIO, "webhook %s: %s", url,
				       *errbuf ? errbuf :
						 curl_easy_strerror(rc));
	else if (status < 200 || status > 299)
		ret = rtlab_err_seterr(err, EIO, "webhook %s: HTTP %ld", url,
				       status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return ret;
}

/* <rtlab.SUBJECT.SECONDS.PID.N@HOST>, with the subject's ':' as '.' */
static void message_id(const char *subject, const char *host, char *out,
		       size_t size)
{
	static unsigned int seq;
	char s[128];
	size_t i;

	snprintf(s, sizeof(s), "%s", subject);
	for (i = 0; s[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789-", s[i]))
			s[i] = '.';
	snprintf(out, size, "<rtlab.%s.%lld.%d.%u@%s>", s,
		 (long long)time(NULL), (int)getpid(), ++seq, host);
}

int notify_send(PGconn *conn, const struct rtlab_config *cfg,
		const struct notify_to *to, const struct notify_msg *m,
		bool *sent, struct rtlab_err *err)
{
	char *root = NULL, *last = NULL, *state = NULL, *body = NULL;
	char host[256] = "localhost", mid[512], from[320], date[64];
	bool mail = to->emails && to->emails[0];
	struct strbuf sb;
	json_t *hook = NULL;
	time_t now = time(NULL);
	struct tm tm;
	size_t i;
	int ret;

	if (sent)
		*sent = false;
	if (!mail && !to->webhook)
		return 0;
	if (mail && !cfg->smtp_url)
		return rtlab_err_seterr(err, EINVAL,
					"%s: recipients are configured but no "
					"smtp_url (the mail relay) is",
					m->subject_key);
	ret = db_notification_get(conn, m->subject_key, &root, &last, &state,
				  err);
	if (ret && ret != -ENOENT)
		return ret;
	if (!ret && !strcmp(state, m->state))
		goto out; /* told already */
	gethostname(host, sizeof(host) - 1);
	message_id(m->subject_key, host, mid, sizeof(mid));
	if (cfg->mail_from)
		snprintf(from, sizeof(from), "%s", cfg->mail_from);
	else
		snprintf(from, sizeof(from), "rtlab@%s", host);
	memset(&sb, 0, sizeof(sb));
	if (mail) {
		gmtime_r(&now, &tm);
		strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000",
			 &tm);
		strbuf_addf(&sb, "From: rtlab <%s>\r\nTo: ", from);
		for (i = 0; to->emails[i]; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", to->emails[i]);
		strbuf_addf(&sb,
			    "\r\nSubject: %s%s\r\nDate: %s\r\n"
			    "Message-ID: %s\r\n",
			    root ? "Re: " : "", m->title, date, mid);
		if (root)
			strbuf_addf(&sb,
				    "In-Reply-To: %s\r\nReferences: %s%s%s\r\n",
				    last, root, strcmp(root, last) ? " " : "",
				    strcmp(root, last) ? last : "");
		strbuf_addf(&sb,
			    "MIME-Version: 1.0\r\n"
			    "Content-Type: text/plain; charset=utf-8\r\n"
			    "Content-Transfer-Encoding: 8bit\r\n"
			    "X-rtlab-Subject: %s\r\n\r\n",
			    m->subject_key);
		/* SMTP dot-stuffing and CRLF line ends */
		for (const char *p = m->text; *p; p++) {
			if ((p == m->text || p[-1] == '\n') && *p == '.')
				strbuf_add(&sb, ".", 1);
			if (*p == '\n')
				strbuf_add(&sb, "\r", 1);
			strbuf_add(&sb, p, 1);
		}
		strbuf_add(&sb, "\r\n", 2);
		if (sb.failed) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			strbuf_cleanup(&sb);
			goto out;
		}
		ret = send_mail(cfg, from, to->emails, sb.buf, err);
		strbuf_cleanup(&sb);
		if (ret)
			goto out;
	}
	if (to->webhook) {
		hook = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s?, s:O?}",
				 "subject", m->subject_key, "state", m->state,
				 "title", m->title, "text", m->text,
				 "message_id", mid, "in_reply_to", last, "data",
				 m->data);
		body = hook ? json_dumps(hook, JSON_COMPACT) : NULL;
		if (!body) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			goto out;
		}
		ret = send_webhook(to->webhook, body, err);
		if (ret)
			goto out;
	}
	ret = db_notification_put(conn, m->subject_key, mid, m->state, err);
	if (!ret && sent)
		*sent = true;
out:
	json_decref(hook);
	free(body);
	free(root);
	free(last);
	free(state);
	return ret;
}
