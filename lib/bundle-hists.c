// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The histograms of a result bundle, read by one rule wherever a bundle is
 * read (ingest, offline verdicts, rtlab boot): cyclictest.json when the
 * range is known, cross-checked against cyclictest.hist when both are
 * there, every thread checked.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "bundle-hists.h"
#include "rtla.h"

#define CT_JSON BUNDLE_CT_JSON
#define CT_HIST BUNDLE_CT_HIST

/* The two records of one measurement must tell the same story. */
static int cross_check(const struct ct_result *js, const struct ct_result *hs,
		       struct rtlab_err *err)
{
	unsigned int t;
	uint32_t i;

	if (js->nthreads != hs->nthreads)
		return rtlab_err_set(err,
				     CT_HIST " disagrees with " CT_JSON
					     ": %u threads vs %u",
				     hs->nthreads, js->nthreads);
	for (t = 0; t < js->nthreads; t++) {
		const struct hist *a = &js->threads[t], *b = &hs->threads[t];
		uint32_t n = a->nbuckets > b->nbuckets ? a->nbuckets :
							 b->nbuckets;

		for (i = 0; i < n; i++) {
			uint64_t ca = i < a->nbuckets ? a->counts[i] : 0;
			uint64_t cb = i < b->nbuckets ? b->counts[i] : 0;

			if (ca != cb)
				return rtlab_err_set(err,
						     CT_HIST
						     " disagrees with " CT_JSON
						     ": thread %u, bucket %u us: %llu "
						     "samples vs %llu",
						     t, i,
						     (unsigned long long)cb,
						     (unsigned long long)ca);
		}
		if (a->overflows != b->overflows)
			return rtlab_err_set(err,
					     CT_HIST " disagrees with " CT_JSON
						     ": thread %u: %llu "
						     "overflows vs %llu",
					     t,
					     (unsigned long long)b->overflows,
					     (unsigned long long)a->overflows);
		if (a->samples != b->samples)
			return rtlab_err_set(err,
					     CT_HIST " disagrees with " CT_JSON
						     ": thread %u: %llu "
						     "samples vs %llu",
					     t, (unsigned long long)b->samples,
					     (unsigned long long)a->samples);
	}
	return 0;
}

/* Fill @js (and @hs) from the bundle; on return the histograms to use
 * are in *@use. */
static int read_both(const struct bundle *b, uint32_t range_us,
		     struct ct_result *js, struct ct_result *hs,
		     struct ct_result **use, struct rtlab_err *err)
{
	const struct bundle_file *fj = bundle_get(b, CT_JSON);
	const struct bundle_file *fh = bundle_get(b, CT_HIST);
	struct ct_result *r;
	unsigned int t;
	int ret;

	*use = NULL;
	if (!fj && !fh)
		return rtlab_err_set(err,
				     "bundle: a complete run needs " CT_JSON
				     " or " CT_HIST ", found neither");
	if (fh) {
		/* The readers name their file in their messages. */
		ret = ct_hist_parse((const char *)fh->data, fh->size, hs, err);
		if (ret)
			return ret;
		if (!range_us && hs->nthreads)
			range_us = hs->threads[0].nbuckets;
	}
	if (fj) {
		if (!range_us)
			return rtlab_err_set(err,
					     "manifest.json: missing field "
					     "'testcase.hist_range_us' (needed "
					     "to read " CT_JSON ")");
		ret = ct_json_parse((const char *)fj->data, fj->size, range_us,
				    js, err);
		if (ret)
			return ret;
	}
	if (fj && fh) {
		ret = cross_check(js, hs, err);
		if (ret)
			return ret;
	}
	r = fj ? js : hs;
	if (!r->nthreads)
		return rtlab_err_set(err, "%s: no measuring threads",
				     fj ? CT_JSON : CT_HIST);
	for (t = 0; t < r->nthreads; t++) {
		ret = hist_check(&r->threads[t], err);
		if (ret) {
			rtlab_err_prefix(err, "%s: thread %u",
					 fj ? CT_JSON : CT_HIST, t);
			return ret;
		}
		/* The -h text does not say where a thread ran. */
		if (!fj && r->threads[t].cpu < 0)
			r->threads[t].cpu = r->threads[t].thread;
	}
	*use = r;
	return 0;
}

int bundle_hists_read(const struct bundle *b, uint32_t hist_range_us,
		      struct ct_result *res, struct rtlab_err *err)
{
	struct ct_result js = { 0 }, hs = { 0 };
	struct ct_result *use = NULL;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = read_both(b, hist_range_us, &js, &hs, &use, err);
	if (!ret) {
		*res = *use;
		memset(use, 0, sizeof(*use));
	}
	ct_result_cleanup(&js);
	ct_result_cleanup(&hs);
	return ret;
}

int bundle_tool_hists_read(const struct bundle *b, enum rt_tool tool,
			   uint32_t hist_range_us, struct ct_result *res,
			   struct rtlab_err *err)
{
	const struct bundle_file *f;
	const char *name = rt_tool_output(tool);

	if (tool == RT_TOOL_CYCLICTEST)
		return bundle_hists_read(b, hist_range_us, res, err);
	memset(res, 0, sizeof(*res));
	res->realtime = -1;
	if (!rt_tool_has_hist(tool))
		return 0;
	f = bundle_get(b, name);
	if (!f)
		return rtlab_err_set(err,
				     "bundle: a complete %s run needs %s, "
				     "not found",
				     rt_tool_name(tool), name);
	return rtla_hist_parse(tool, (const char *)f->data, f->size,
			       hist_range_us, res, err);
}

int bundle_summary_read(const struct bundle *b, enum rt_tool tool, json_t **out,
			struct rtlab_err *err)
{
	struct rt_summary s = { 0 };
	const struct bundle_file *f;
	const char *name = rt_tool_output(tool);
	int ret;

	*out = NULL;
	if (rt_tool_has_hist(tool))
		return 0;
	f = bundle_get(b, name);
	if (!f)
		return rtlab_err_set(err,
				     "bundle: a complete %s run needs %s, "
				     "not found",
				     rt_tool_name(tool), name);
	ret = rt_summary_parse(tool, (const char *)f->data, f->size, &s, err);
	if (!ret) {
		*out = rt_summary_to_json(&s);
		if (!*out)
			ret = -ENOMEM;
	}
	rt_summary_cleanup(&s);
	return ret;
}
