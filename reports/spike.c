// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Spike analysis of a trace.dat: what held the CPU at the worst latency,
 * in the spirit of `rtla timerlat --auto`.  Two passes over the file
 * through libtracecmd: the first, over every CPU, finds the spike
 * (cyclictest's tracemark, else the worst wakeup-to-run of a measuring
 * thread) and the timer interrupt that woke the thread; the second, over
 * the spike's CPU only, replays the CPU's contexts (tasks, IRQ handlers,
 * softirqs, the local timer interrupt) and charges each stretch of time
 * inside the window to whatever was on top when it passed.  One open of
 * the file serves both (parsing its headers costs more than the events).
 */

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include <trace-cmd/trace-cmd.h>

#include "spike.h"
#include "strbuf.h"
#include "trace-lean.h"

/*
 * Exported by libtracecmd (1.1 and later) but declared only in its private
 * header: the UNAME option of the file, "SYSNAME NODENAME RELEASE
 * MACHINE" as trace-cmd writes it.
 */
const char *tracecmd_get_uname(struct tracecmd_input *handle);

#define SPIKE_MARK "hit latency threshold ("
/* rtlab-agent's mark on a trace kept by an onmax snapshot (agent/ftrace.h) */
#define SPIKE_SNAP_MARK "rtlab worst wakeup ("
#define SPIKE_MAX_DEPTH 16
#define NS_PER_US 1000.0

static const char *const softirq_names[] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

const char *spike_softirq_name(int vec)
{
	if (vec < 0 ||
	    vec >= (int)(sizeof(softirq_names) / sizeof(softirq_names[0])))
		return "?";
	return softirq_names[vec];
}

/* The events and fields both passes read. */
struct ev {
	struct tep_handle *tep;
	int switch_id, wakeup_id, print_id;
	int irq_entry_id, irq_exit_id, sirq_entry_id, sirq_exit_id;
	int timer_entry_id, timer_exit_id;
	struct tep_format_field *prev_pid, *prev_comm, *prev_prio;
	struct tep_format_field *next_pid, *next_comm, *next_prio;
	struct tep_format_field *wake_pid, *wake_comm, *wake_prio;
	struct tep_format_field *print_buf;
	struct tep_format_field *irq_irq, *irq_name, *sirq_vec;
};

static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return e ? tep_find_field(e, name) : NULL;
}

static int event_id(struct tep_handle *tep, const char *sys, const char *name,
		    struct tep_event **out)
{
	struct tep_event *e = tep_find_event_by_name(tep, sys, name);

	*out = e;
	return e ? e->id : -1;
}

static void ev_init(struct ev *ev, struct tep_handle *tep)
{
	struct tep_event *sw, *wk, *pr, *ie, *se, *dummy;

	memset(ev, 0, sizeof(*ev));
	ev->tep = tep;
	ev->switch_id = event_id(tep, "sched", "sched_switch", &sw);
	ev->wakeup_id = event_id(tep, "sched", "sched_wakeup", &wk);
	ev->print_id = event_id(tep, "ftrace", "print", &pr);
	ev->irq_entry_id = event_id(tep, "irq", "irq_handler_entry", &ie);
	ev->irq_exit_id = event_id(tep, "irq", "irq_handler_exit", &dummy);
	ev->sirq_entry_id = event_id(tep, "irq", "softirq_entry", &se);
	ev->sirq_exit_id = event_id(tep, "irq", "softirq_exit", &dummy);
	ev->timer_entry_id =
		event_id(tep, "irq_vectors", "local_timer_entry", &dummy);
	ev->timer_exit_id =
		event_id(tep, "irq_vectors", "local_timer_exit", &dummy);
	ev->prev_pid = field(sw, "prev_pid");
	ev->prev_comm = field(sw, "prev_comm");
	ev->prev_prio = field(sw, "prev_prio");
	ev->next_pid = field(sw, "next_pid");
	ev->next_comm = field(sw, "next_comm");
	ev->next_prio = field(sw, "next_prio");
	ev->wake_pid = field(wk, "pid");
	ev->wake_comm = field(wk, "comm");
	ev->wake_prio = field(wk, "prio");
	ev->print_buf = field(pr, "buf");
	ev->irq_irq = field(ie, "irq");
	ev->irq_name = field(ie, "name");
	ev->sirq_vec = field(se, "vec");
	/* irq_handler_exit and softirq_exit share the field names. */
}

static long long num(struct tep_format_field *f, struct tep_record *r)
{
	unsigned long long v = 0;

	if (!f || tep_read_number_field(f, r->data, &v))
		return -1;
	if (f->size == 4)
		return (int)v;
	return (long long)v;
}

/* A fixed char array (comm) or a __data_loc string (irq name). */
static void str(struct tep_format_field *f, struct tep_record *r, char *buf,
		size_t size)
{
	unsigned long long v;
	unsigned int off, len;

	buf[0] = '\0';
	if (!f || !size)
		return;
	off = f->offset;
	len = f->size;
	if (!len) /* char buf[] at the end: up to the record's end */
		len = r->size > (int)off ? r->size - off : 0;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if (tep_read_number_field(f, r->data, &v))
			return;
		off = v & 0xffff;
		len = v >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	if (off >= (unsigned int)r->size)
		return;
	if (len > (unsigned int)r->size - off)
		len = r->size - off;
	if (len >= size)
		len = size - 1;
	memcpy(buf, (const char *)r->data + off, len);
	buf[len] = '\0';
	buf[strnlen(buf, len)] = '\0';
}

static bool is_cyclictest(const char *comm, long long prio)
{
	/* The measuring threads run SCHED_FIFO (kernel prio < 100); the
	 * main thread, also "cyclictest", does not. */
	return !strncmp(comm, "cyclictest", 10) && prio >= 0 && prio < 100;
}

/* ---- pass 1: find the spike ------------------------------------------ */

struct ct_thread {
	int pid;
	uint64_t wakeup_ns;	  /* pending wakeup, 0 when none */
	uint64_t wakeup_timer_ns; /* its timer interrupt's entry */
	int wakeup_cpu;
	/* the last switch-in and the wakeup that led to it */
	uint64_t run_ns, run_wakeup_ns, run_timer_ns;
	int run_cpu;
	int prio;
	char comm[SPIKE_COMM_LEN];
};

struct pass1 {
	struct ev *ev;
	int want_cpu;
	int ncpus;
	uint64_t *timer_entry; /* per CPU; 0: not in the timer IRQ */
	size_t nthreads, cap;
	struct ct_thread *threads;
	uint64_t nevents;
	/* the last tracemark */
	bool have_mark;
	struct ct_thread mark_thread;
	int mark_cpu;
	uint64_t mark_ns, mark_x, mark_y;
	/* the agent's mark of the kept worst wakeup: its thread as it was */
	bool have_snap;
	struct ct_thread snap_thread;
	uint64_t snap_x;
	/* the worst wakeup-to-run */
	bool have_worst;
	struct ct_thread worst;
	uint64_t worst_ns;
	bool nomem;
};

static struct ct_thread *ct_find(struct pass1 *p, int pid, bool add)
{
	struct ct_thread *t;
	size_t i;

	for (i = 0; i < p->nthreads; i++)
		if (p->threads[i].pid == pid)
			return &p->threads[i];
	if (!add)
		return NULL;
	if (p->nthreads == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;

		t = realloc(p->threads, cap * sizeof(*t));
		if (!t) {
			p->nomem = true;
			return NULL;
		}
		p->threads = t;
		p->cap = cap;
	}
	t = &p->threads[p->nthreads++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	return t;
}

static int pass1_cb(struct tracecmd_input *h, struct tep_record *r, int cpu,
		    void *data)
{
	struct pass1 *p = data;
	struct ev *ev = p->ev;
	char comm[SPIKE_COMM_LEN], buf[128];
	struct ct_thread *t;
	long long pid, prio;
	unsigned long long x, y;
	int id = tep_data_type(ev->tep, r);

	p->nevents++;
	if (cpu < 0 || cpu >= p->ncpus)
		return 0;
	if (id == ev->timer_entry_id) {
		p->timer_entry[cpu] = r->ts;
	} else if (id == ev->timer_exit_id) {
		p->timer_entry[cpu] = 0;
	} else if (id == ev->wakeup_id) {
		str(ev->wake_comm, r, comm, sizeof(comm));
		prio = num(ev->wake_prio, r);
		if (!is_cyclictest(comm, prio))
			return 0;
		pid = num(ev->wake_pid, r);
		t = ct_find(p, (int)pid, true);
		if (!t)
			return -1;
		t->wakeup_ns = r->ts;
		t->wakeup_cpu = cpu;
		t->wakeup_timer_ns = p->timer_entry[cpu];
		t->prio = (int)prio;
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	} else if (id == ev->switch_id) {
		pid = num(ev->next_pid, r);
		t = ct_find(p, (int)pid, false);
		if (!t) {
			str(ev->next_comm, r, comm, sizeof(comm));
			prio = num(ev->next_prio, r);
			if (!is_cyclictest(comm, prio))
				return 0;
			t = ct_find(p, (int)pid, true);
			if (!t)
				return -1;
			t->prio = (int)prio;
			snprintf(t->comm, sizeof(t->comm), "%s", comm);
		}
		t->run_ns = r->ts;
		t->run_cpu = cpu;
		t->run_wakeup_ns = t->wakeup_ns;
		t->run_timer_ns = t->wakeup_ns ? t->wakeup_timer_ns : 0;
		if (t->wakeup_ns && r->ts >= t->wakeup_ns &&
		    (p->want_cpu < 0 || p->want_cpu == cpu) &&
		    (!p->have_worst || r->ts - t->wakeup_ns > p->worst_ns)) {
			p->have_worst = true;
			p->worst = *t;
			p->worst_ns = r->ts - t->wakeup_ns;
		}
		t->wakeup_ns = 0;
	} else if (id == ev->print_id) {
		str(ev->print_buf, r, buf, sizeof(buf));
		if (strstr(buf, SPIKE_SNAP_MARK) &&
		    sscanf(strstr(buf, SPIKE_SNAP_MARK) +
				   strlen(SPIKE_SNAP_MARK),
			   "%llu us, pid %lld", &x, &pid) == 2) {
			t = ct_find(p, (int)pid, false);
			if (t && t->run_ns &&
			    (p->want_cpu < 0 || p->want_cpu == t->run_cpu)) {
				p->have_snap = true;
				p->snap_thread = *t;
				p->snap_x = x;
			}
			return 0;
		}
		if (!strstr(buf, SPIKE_MARK) ||
		    sscanf(strstr(buf, SPIKE_MARK) + strlen(SPIKE_MARK),
			   "%llu > %llu)", &x, &y) != 2)
			return 0;
		if (p->want_cpu >= 0 && p->want_cpu != cpu)
			return 0;
		pid = tep_data_pid(ev->tep, r);
		t = ct_find(p, (int)pid, false);
		p->have_mark = true;
		p->mark_cpu = cpu;
		p->mark_ns = r->ts;
		p->mark_x = x;
		p->mark_y = y;
		memset(&p->mark_thread, 0, sizeof(p->mark_thread));
		if (t && t->run_cpu == cpu) {
			p->mark_thread = *t;
		} else {
			p->mark_thread.pid = (int)pid;
			p->mark_thread.prio = -1;
			snprintf(p->mark_thread.comm,
				 sizeof(p->mark_thread.comm), "%s",
				 tep_data_comm_from_pid(ev->tep, (int)pid));
		}
	}
	return 0;
}

/* ---- pass 2: account for the window on the spike's CPU --------------- */

struct ctx {
	enum spike_kind kind;
	int id;
	char name[SPIKE_NAME_LEN];
	uint64_t start_ns, window_ns;
};

struct task {
	int pid, prio;
	char comm[SPIKE_COMM_LEN];
	uint64_t window_ns;
	uint64_t since_ns; /* switch-in of the current stint */
	uint64_t stint_ns; /* last stint overlapping the window */
	int depth;	   /* contexts it was in when switched out */
	struct ctx saved[SPIKE_MAX_DEPTH];
};

struct pass2 {
	struct ev *ev;
	struct spike_result *res;
	uint64_t win_start, win_end;
	uint64_t last_ns;
	bool started, done;
	int cur; /* index in tasks, -1: unknown */
	int depth;
	struct ctx stack[SPIKE_MAX_DEPTH];
	size_t ntasks, tcap;
	struct task *tasks;
	size_t nitems, icap;
	struct spike_item *items;
	bool nomem;
};

static int task_get(struct pass2 *p, int pid, const char *comm, int prio)
{
	struct task *t;
	size_t i;

	for (i = 0; i < p->ntasks; i++)
		if (p->tasks[i].pid == pid)
			goto found;
	if (p->ntasks == p->tcap) {
		size_t cap = p->tcap ? 2 * p->tcap : 64;

		t = realloc(p->tasks, cap * sizeof(*t));
		if (!t) {
			p->nomem = true;
			return -1;
		}
		p->tasks = t;
		p->tcap = cap;
	}
	i = p->ntasks++;
	memset(&p->tasks[i], 0, sizeof(p->tasks[i]));
	p->tasks[i].pid = pid;
	p->tasks[i].prio = -1;
found:
	t = &p->tasks[i];
	if (comm && comm[0])
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	else if (!t->comm[0])
		snprintf(t->comm, sizeof(t->comm), "%s",
			 tep_data_comm_from_pid(p->ev->tep, pid));
	if (prio >= 0)
		t->prio = prio;
	return (int)i;
}

static void task_ident(const struct task *t, struct spike_task *out)
{
	out->pid = t->pid;
	out->prio = t->prio;
	snprintf(out->comm, sizeof(out->comm), "%s", t->comm);
}

static struct spike_item *item_add(struct pass2 *p)
{
	struct spike_item *it;

	if (p->nitems == p->icap) {
		size_t cap = p->icap ? 2 * p->icap : 32;

		it = realloc(p->items, cap * sizeof(*it));
		if (!it) {
			p->nomem = true;
			return NULL;
		}
		p->items = it;
		p->icap = cap;
	}
	it = &p->items[p->nitems++];
	memset(it, 0, sizeof(*it));
	return it;
}

/* Charge the time since the last event up to @ts to the top context. */
static void charge(struct pass2 *p, uint64_t ts)
{
	struct spike_result *res = p->res;
	uint64_t from = p->last_ns > p->win_start ? p->last_ns : p->win_start;
	uint64_t to = ts < p->win_end ? ts : p->win_end;

	if (p->started && ts >= p->win_start && !res->has_at_expiry &&
	    p->cur >= 0) {
		task_ident(&p->tasks[p->cur], &res->at_expiry);
		res->has_at_expiry = true;
	}
	if (p->started && to > from) {
		/* The measuring thread's own run to the mark is silent by
		 * nature: not a suspect. */
		if (ts - p->last_ns > res->silent_ns &&
		    (p->cur < 0 || p->tasks[p->cur].pid != res->thread.pid)) {
			/* the whole stretch, also before the window */
			res->silent_ns = ts - p->last_ns;
			res->silent_start_ns = p->last_ns;
			if (p->cur >= 0)
				task_ident(&p->tasks[p->cur],
					   &res->silent_task);
		}
		if (p->depth)
			p->stack[p->depth - 1].window_ns += to - from;
		else if (p->cur >= 0)
			p->tasks[p->cur].window_ns += to - from;
	}
	p->started = true;
	p->last_ns = ts;
}

static void push(struct pass2 *p, enum spike_kind kind, int id,
		 const char *name, uint64_t ts)
{
	struct ctx *c;

	if (p->depth == SPIKE_MAX_DEPTH)
		return;
	c = &p->stack[p->depth++];
	c->kind = kind;
	c->id = id;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->start_ns = ts;
	c->window_ns = 0;
}

static void ctx_item(struct pass2 *p, const struct ctx *c, uint64_t end_ns,
		     bool closed)
{
	struct spike_item *it;

	if (!c->window_ns &&
	    (c->start_ns >= p->win_end || (closed && end_ns <= p->win_start)))
		return;
	if (closed && end_ns <= p->win_start)
		return;
	it = item_add(p);
	if (!it)
		return;
	it->kind = c->kind;
	it->id = c->id;
	snprintf(it->name, sizeof(it->name), "%s", c->name);
	if (p->cur >= 0) {
		it->pid = p->tasks[p->cur].pid;
		it->prio = p->tasks[p->cur].prio;
		snprintf(it->comm, sizeof(it->comm), "%s",
			 p->tasks[p->cur].comm);
	}
	it->start_ns = c->start_ns;
	it->window_ns = c->window_ns;
	it->total_ns = closed ? end_ns - c->start_ns : 0;
}

/* Close the innermost context of @kind (and any left open above it). */
static void pop(struct pass2 *p, enum spike_kind kind, int id, uint64_t ts)
{
	struct spike_result *res = p->res;
	int i;

	for (i = p->depth - 1; i >= 0; i--)
		if (p->stack[i].kind == kind &&
		    (id < 0 || p->stack[i].id == id))
			break;
	if (i < 0)
		return; /* its entry was before the trace began */
	while (p->depth > i) {
		struct ctx *c = &p->stack[p->depth - 1];

		if (c->kind == SPIKE_KIND_TIMER && res->timer_ns &&
		    c->start_ns == res->timer_ns)
			res->timer_irq_ns = ts - c->start_ns;
		ctx_item(p, c, ts, true);
		p->depth--;
	}
}

static void task_switch(struct pass2 *p, int next, uint64_t ts)
{
	struct task *t;

	if (p->cur >= 0) {
		t = &p->tasks[p->cur];
		t->depth = p->depth;
		memcpy(t->saved, p->stack, p->depth * sizeof(p->stack[0]));
		if (ts > p->win_start && t->since_ns < p->win_end)
			t->stint_ns = ts - t->since_ns;
	}
	p->cur = next;
	t = &p->tasks[next];
	p->depth = t->depth;
	memcpy(p->stack, t->saved, t->depth * sizeof(p->stack[0]));
	t->depth = 0;
	t->since_ns = ts;
}

static int pass2_cb(struct tracecmd_input *h, struct tep_record *r, int cpu,
		    void *data)
{
	struct pass2 *p = data;
	struct ev *ev = p->ev;
	struct spike_result *res = p->res;
	char comm[SPIKE_COMM_LEN], name[SPIKE_NAME_LEN];
	int id, pid, prev, next;
	long long v;

	if (p->done || cpu != res->cpu)
		return 0;
	if (r->ts > p->win_end) {
		p->done = true;
		return 0;
	}
	id = tep_data_type(ev->tep, r);
	charge(p, r->ts);
	pid = tep_data_pid(ev->tep, r);
	if (p->cur < 0 || p->tasks[p->cur].pid != pid) {
		/* No switch seen to the task the event ran in: the trace
		 * began after it, or an event was lost. */
		next = task_get(p, pid, NULL, -1);
		if (next < 0)
			return -1;
		task_switch(p, next, r->ts);
	}
	if (id == ev->switch_id) {
		str(ev->prev_comm, r, comm, sizeof(comm));
		prev = task_get(p, (int)num(ev->prev_pid, r), comm,
				(int)num(ev->prev_prio, r));
		str(ev->next_comm, r, comm, sizeof(comm));
		next = task_get(p, (int)num(ev->next_pid, r), comm,
				(int)num(ev->next_prio, r));
		if (prev < 0 || next < 0)
			return -1;
		p->cur = prev;
		if (p->tasks[next].pid == res->thread.pid &&
		    r->ts == res->run_ns) {
			task_ident(&p->tasks[prev], &res->blocking);
			res->has_blocking = true;
			res->blocking_stint_ns =
				r->ts - p->tasks[prev].since_ns;
		}
		task_switch(p, next, r->ts);
	} else if (id == ev->timer_entry_id) {
		push(p, SPIKE_KIND_TIMER, 236, "local_timer", r->ts);
	} else if (id == ev->timer_exit_id) {
		pop(p, SPIKE_KIND_TIMER, -1, r->ts);
	} else if (id == ev->irq_entry_id) {
		str(ev->irq_name, r, name, sizeof(name));
		push(p, SPIKE_KIND_IRQ, (int)num(ev->irq_irq, r), name, r->ts);
	} else if (id == ev->irq_exit_id) {
		pop(p, SPIKE_KIND_IRQ, (int)num(ev->irq_irq, r), r->ts);
	} else if (id == ev->sirq_entry_id) {
		v = num(ev->sirq_vec, r);
		push(p, SPIKE_KIND_SOFTIRQ, (int)v, spike_softirq_name((int)v),
		     r->ts);
	} else if (id == ev->sirq_exit_id) {
		pop(p, SPIKE_KIND_SOFTIRQ, (int)num(ev->sirq_vec, r), r->ts);
	}
	if (r->ts == p->win_end && id == ev->print_id)
		p->done = true;
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct spike_item *x = a, *y = b;

	if (x->window_ns != y->window_ns)
		return x->window_ns < y->window_ns ? 1 : -1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* The contexts still open at the window's end, the threads, the sums. */
static void pass2_finish(struct pass2 *p)
{
	struct spike_result *res = p->res;
	struct spike_item *it;
	size_t i;
	int d;

	charge(p, p->win_end);
	for (d = p->depth - 1; d >= 0; d--)
		ctx_item(p, &p->stack[d], p->win_end, false);
	if (p->cur >= 0 && p->tasks[p->cur].since_ns < p->win_end)
		p->tasks[p->cur].stint_ns =
			p->win_end - p->tasks[p->cur].since_ns;
	for (i = 0; i < p->ntasks; i++) {
		struct task *t = &p->tasks[i];

		for (d = 0; d < t->depth; d++)
			if (t->saved[d].window_ns)
				ctx_item(p, &t->saved[d], p->win_end, false);
		if (t->pid == res->thread.pid) {
			res->self_ns = t->window_ns;
			continue;
		}
		if (res->has_blocking && t->pid == res->blocking.pid)
			res->blocking_window_ns = t->window_ns;
		if (!t->window_ns)
			continue;
		it = item_add(p);
		if (!it)
			return;
		it->kind = SPIKE_KIND_THREAD;
		it->id = t->pid;
		it->pid = t->pid;
		it->prio = t->prio;
		snprintf(it->name, sizeof(it->name), "%s", t->comm);
		snprintf(it->comm, sizeof(it->comm), "%s", t->comm);
		it->start_ns = t->since_ns;
		it->window_ns = t->window_ns;
		it->total_ns = t->stint_ns;
	}
	qsort(p->items, p->nitems, sizeof(*p->items), item_cmp);
	for (i = 0; i < p->nitems; i++) {
		it = &p->items[i];
		if (it->kind == SPIKE_KIND_THREAD)
			res->thread_ns += it->window_ns;
		else if (it->kind == SPIKE_KIND_SOFTIRQ)
			res->softirq_ns += it->window_ns;
		else
			res->irq_ns += it->window_ns;
	}
	res->items = p->items;
	res->nitems = p->nitems;
	p->items = NULL;
	p->nitems = 0;
}

/* ---- the analysis ----------------------------------------------------- */

static struct tracecmd_input *open_trace(const char *path,
					 struct rtlab_err *err, int *ret)
{
	struct tracecmd_input *h;
	struct stat st;

	if (stat(path, &st)) {
		*ret = rtlab_err_seterr(err, errno, "%s: cannot open: %s", path,
					strerror(errno));
		return NULL;
	}
	h = trace_lean_open(path);
	if (!h)
		*ret = rtlab_err_seterr(err, EINVAL,
					"%s: not a readable trace.dat "
					"(truncated or damaged: libtracecmd "
					"refused it)",
					path);
	return h;
}

static void set_uname(struct spike_result *res, struct tracecmd_input *h)
{
	const char *u = tracecmd_get_uname(h);
	char sys[64], node[128], rel[128];

	if (!u)
		return;
	snprintf(res->uname, sizeof(res->uname), "%s", u);
	if (sscanf(u, "%63s %127s %127s", sys, node, rel) == 3)
		snprintf(res->release, sizeof(res->release), "%s", rel);
}

int spike_analyze_cpu(const char *path, int want_cpu, struct spike_result *res,
		      struct rtlab_err *err)
{
	struct tracecmd_input *h = NULL;
	struct pass1 p1 = { 0 };
	struct pass2 p2 = { 0 };
	struct tep_record *rec;
	struct ct_thread *t;
	struct ev ev;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	snprintf(res->file, sizeof(res->file), "%s", path);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = open_trace(path, err, &ret);
	if (!h)
		goto out;
	set_uname(res, h);
	ev_init(&ev, tracecmd_get_tep(h));
	if (ev.switch_id < 0 || !ev.next_pid || !ev.prev_pid) {
		ret = rtlab_err_set(err,
				    "%s: no sched:sched_switch events "
				    "in the trace; the analysis needs them",
				    path);
		goto out;
	}
	p1.ev = &ev;
	p1.want_cpu = want_cpu;
	p1.ncpus = tep_get_cpus(ev.tep);
	if (p1.ncpus < 1)
		p1.ncpus = 1;
	if (want_cpu >= p1.ncpus) {
		ret = rtlab_err_set(err,
				    "%s: --cpu %d: the trace has CPUs "
				    "0..%d",
				    path, want_cpu, p1.ncpus - 1);
		goto out;
	}
	p1.timer_entry = calloc(p1.ncpus, sizeof(*p1.timer_entry));
	if (!p1.timer_entry) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	if (trace_lean_iterate(h, pass1_cb, &p1) < 0 || p1.nomem) {
		ret = p1.nomem ?
			      rtlab_err_seterr(err, ENOMEM, "out of memory") :
			      rtlab_err_set(err,
					    "%s: reading the events failed "
					    "(truncated or damaged trace.dat?)",
					    path);
		goto out;
	}
	res->nevents = p1.nevents;
	if (!p1.nevents) {
		ret = rtlab_err_set(err,
				    "%s: the trace holds no events "
				    "(truncated trace.dat, or tracing never "
				    "ran)",
				    path);
		goto out;
	}
	if (p1.have_mark) {
		t = &p1.mark_thread;
		res->source = SPIKE_SOURCE_TRACEMARK;
		res->cpu = p1.mark_cpu;
		res->lat_us = p1.mark_x;
		res->threshold_us = p1.mark_y;
		res->end_ns = p1.mark_ns;
		res->run_ns = t->run_ns;
		res->wakeup_ns = t->run_wakeup_ns;
		res->timer_ns = t->run_timer_ns;
		res->expiry_ns = p1.mark_ns - p1.mark_x * 1000;
		if (res->timer_ns && res->timer_ns < res->expiry_ns)
			res->expiry_ns = res->timer_ns;
		if (!res->run_ns)
			res->run_ns = res->expiry_ns;
	} else if (p1.have_snap) {
		/* The agent timed this switch-in from the timer's expiry (or
		 * the waking) and kept the trace at it. */
		t = &p1.snap_thread;
		res->source = SPIKE_SOURCE_SNAPSHOT;
		res->cpu = t->run_cpu;
		res->lat_us = p1.snap_x;
		res->run_ns = t->run_ns;
		res->end_ns = t->run_ns;
		res->wakeup_ns = t->run_wakeup_ns;
		res->timer_ns = t->run_timer_ns;
		res->expiry_ns = t->run_ns - p1.snap_x * 1000;
		if (res->timer_ns && res->timer_ns < res->expiry_ns)
			res->expiry_ns = res->timer_ns;
	} else if (p1.have_worst) {
		t = &p1.worst;
		res->source = SPIKE_SOURCE_WAKEUP;
		res->cpu = t->run_cpu;
		res->lat_us = (p1.worst_ns + 500) / 1000;
		res->run_ns = t->run_ns;
		res->end_ns = t->run_ns;
		res->wakeup_ns = t->run_wakeup_ns;
		res->timer_ns = t->run_timer_ns;
		res->expiry_ns = res->timer_ns ? res->timer_ns : res->wakeup_ns;
	} else {
		ret = rtlab_err_set(err,
				    "%s: no spike to analyze: no "
				    "cyclictest tracemark (\"%s...\") and no "
				    "wakeup of a cyclictest measuring thread%s",
				    path, SPIKE_MARK,
				    want_cpu >= 0 ? " on that CPU" : "");
		goto out;
	}
	res->thread.pid = t->pid;
	res->thread.prio = t->prio;
	snprintf(res->thread.comm, sizeof(res->thread.comm), "%s", t->comm);
	if (res->wakeup_ns && res->run_ns >= res->wakeup_ns)
		res->wakeup_to_run_ns = res->run_ns - res->wakeup_ns;
	if (res->timer_ns >= res->expiry_ns && res->timer_ns)
		res->irq_delay_ns = res->timer_ns - res->expiry_ns;

	/* Pass 2, on the spike's CPU only: back to its first record. */
	p2.ev = &ev;
	p2.res = res;
	p2.cur = -1;
	p2.win_start = res->expiry_ns;
	p2.win_end = res->end_ns;
	for (rec = tracecmd_read_cpu_first(h, res->cpu); rec && !p2.done;
	     rec = tracecmd_read_data(h, res->cpu)) {
		ret = pass2_cb(h, rec, res->cpu, &p2);
		tracecmd_free_record(rec);
		rec = NULL;
		if (ret || p2.nomem) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	tracecmd_free_record(rec);
	pass2_finish(&p2);
	if (p2.nomem)
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
out:
	free(p2.tasks);
	free(p2.items);
	free(p1.timer_entry);
	free(p1.threads);
	if (h)
		tracecmd_close(h);
	return ret;
}

int spike_analyze_file(const char *path, struct spike_result *res,
		       struct rtlab_err *err)
{
	return spike_analyze_cpu(path, -1, res, err);
}

void spike_result_cleanup(struct spike_result *res)
{
	if (!res)
		return;
	free(res->items);
	res->items = NULL;
	res->nitems = 0;
}

int spike_check_release(const struct spike_result *res, const char *release,
			struct rtlab_err *err)
{
	if (!res->release[0] || !release || !release[0] ||
	    !strcmp(res->release, release))
		return 0;
	return rtlab_err_seterr(err, EXDEV,
				"%s was recorded on kernel %s, but the run's "
				"kernel is %s: not this run's trace",
				res->file, res->release, release);
}

/* ---- output ----------------------------------------------------------- */

static const char *kind_name(enum spike_kind k)
{
	switch (k) {
	case SPIKE_KIND_TIMER:
		return "timer";
	case SPIKE_KIND_IRQ:
		return "irq";
	case SPIKE_KIND_SOFTIRQ:
		return "softirq";
	default:
		return "thread";
	}
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static uint64_t window_ns(const struct spike_result *res)
{
	return res->end_ns > res->expiry_ns ? res->end_ns - res->expiry_ns : 0;
}

static void tline(struct strbuf *t, const char *label, uint64_t ns,
		  uint64_t whole)
{
	strbuf_addf(t, "  %-40s %9.2f us (%5.2f %%)\n", label, ns / NS_PER_US,
		    pct(ns, whole));
}

static void ttask(struct strbuf *t, const struct spike_task *k)
{
	strbuf_addf(t, "%s:%d (prio %d)", k->comm, k->pid, k->prio);
}

static void items_text(struct strbuf *t, const struct spike_result *res,
		       enum spike_kind kind, const char *title)
{
	uint64_t whole = window_ns(res);
	char label[128];
	size_t i, n = 0;

	for (i = 0; i < res->nitems; i++) {
		const struct spike_item *it = &res->items[i];

		if (kind == SPIKE_KIND_IRQ ? (it->kind != SPIKE_KIND_IRQ &&
					      it->kind != SPIKE_KIND_TIMER) :
					     it->kind != kind)
			continue;
		if (!n++)
			strbuf_addf(t, "  %s:\n", title);
		if (it->kind == SPIKE_KIND_TIMER)
			snprintf(label, sizeof(label), "local_timer:%d",
				 it->id);
		else if (it->kind == SPIKE_KIND_IRQ)
			snprintf(label, sizeof(label), "irq %d %s", it->id,
				 it->name);
		else if (it->kind == SPIKE_KIND_SOFTIRQ)
			snprintf(label, sizeof(label), "%s:%d", it->name,
				 it->id);
		else
			snprintf(label, sizeof(label), "%s:%d (prio %d)",
				 it->comm, it->pid, it->prio);
		strbuf_addf(t, "    %-38s %9.2f us (%5.2f %%)", label,
			    it->window_ns / NS_PER_US,
			    pct(it->window_ns, whole));
		if (it->kind != SPIKE_KIND_THREAD)
			strbuf_addf(t, " in %s:%d", it->comm, it->pid);
		if (it->total_ns && it->total_ns != it->window_ns)
			strbuf_addf(t, ", %s %.2f us",
				    it->kind == SPIKE_KIND_THREAD ? "ran" :
								    "whole",
				    it->total_ns / NS_PER_US);
		strbuf_addf(t, "\n");
	}
}

char *spike_result_text(const struct spike_result *res)
{
	struct strbuf t = { 0 };
	uint64_t whole = window_ns(res);

	strbuf_addf(&t, "## CPU %d hit %s, analyzing it ##\n", res->cpu,
		    res->source == SPIKE_SOURCE_TRACEMARK ?
			    "stop tracing" :
		    res->source == SPIKE_SOURCE_SNAPSHOT ?
			    "the run's worst wakeup" :
			    "its worst wakeup-to-run latency");
	strbuf_addf(&t, "  trace: %s (%s), %" PRIu64 " events\n", res->file,
		    res->uname[0] ? res->uname : "no uname recorded",
		    res->nevents);
	strbuf_addf(&t, "  measuring thread: ");
	ttask(&t, &res->thread);
	if (res->source == SPIKE_SOURCE_TRACEMARK)
		strbuf_addf(&t,
			    ", latency %" PRIu64 " us > threshold %" PRIu64
			    " us (tracemark)\n",
			    res->lat_us, res->threshold_us);
	else if (res->source == SPIKE_SOURCE_SNAPSHOT)
		strbuf_addf(&t,
			    ", latency %" PRIu64 " us, the run's worst "
			    "(trace kept by snapshot)\n",
			    res->lat_us);
	else
		strbuf_addf(&t,
			    ", wakeup to switch-in %" PRIu64 " us (no "
			    "tracemark)\n",
			    res->lat_us);
	if (res->has_at_expiry) {
		strbuf_addf(&t, "  running when the timer fired: ");
		ttask(&t, &res->at_expiry);
		strbuf_addf(&t, "\n");
	}
	if (res->timer_ns) {
		tline(&t, "IRQ handler delay:", res->irq_delay_ns, whole);
		tline(&t, "timer IRQ duration:", res->timer_irq_ns, whole);
	} else {
		strbuf_addf(&t, "  IRQ handler delay: unknown (no local_timer "
				"event woke the thread)\n");
	}
	tline(&t, "wakeup to switch-in:", res->wakeup_to_run_ns, whole);
	if (res->has_blocking) {
		strbuf_addf(&t, "  blocking thread: ");
		ttask(&t, &res->blocking);
		if (!res->blocking.pid)
			strbuf_addf(&t, " (idle)");
		strbuf_addf(&t,
			    " %.2f us in the window, ran %.2f us "
			    "(switch-in to switch-out)\n",
			    res->blocking_window_ns / NS_PER_US,
			    res->blocking_stint_ns / NS_PER_US);
	}
	items_text(&t, res, SPIKE_KIND_IRQ, "IRQ interference");
	items_text(&t, res, SPIKE_KIND_SOFTIRQ, "softirq interference");
	items_text(&t, res, SPIKE_KIND_THREAD, "thread interference");
	if (res->silent_ns && res->silent_ns * 10 >= whole) {
		strbuf_addf(&t, "  no events for %.2f us (%.6f..%.6f s) while ",
			    res->silent_ns / NS_PER_US,
			    res->silent_start_ns / 1e9,
			    (res->silent_start_ns + res->silent_ns) / 1e9);
		ttask(&t, &res->silent_task);
		strbuf_addf(&t,
			    res->silent_task.pid ?
				    " ran: preemption or interrupts disabled, or code "
				    "without tracepoints\n" :
				    " ran: leaving idle\n");
	}
	if (res->source == SPIKE_SOURCE_TRACEMARK)
		tline(&t, "measuring thread, switch-in to mark:", res->self_ns,
		      whole);
	strbuf_addf(&t, "  %s\n",
		    "------------------------------------------"
		    "------------------------------");
	strbuf_addf(&t,
		    "  %-40s %9.2f us = IRQ %.2f + softirq %.2f + threads "
		    "%.2f + measuring thread %.2f\n",
		    res->source == SPIKE_SOURCE_TRACEMARK ?
			    "window (expiry to mark):" :
		    res->source == SPIKE_SOURCE_SNAPSHOT ?
			    "window (expiry to switch-in):" :
			    "window (wakeup to switch-in):",
		    whole / NS_PER_US, res->irq_ns / NS_PER_US,
		    res->softirq_ns / NS_PER_US, res->thread_ns / NS_PER_US,
		    res->self_ns / NS_PER_US);
	return strbuf_take(&t);
}

static double us(uint64_t ns)
{
	return ns / NS_PER_US;
}

static json_t *task_json(const struct spike_task *k, bool has)
{
	if (!has)
		return json_null();
	return json_pack("{sisssi}", "pid", k->pid, "comm", k->comm, "prio",
			 k->prio);
}

char *spike_result_json(const struct spike_result *res)
{
	json_t *root, *items, *o;
	char *s = NULL;
	size_t i;

	items = json_array();
	for (i = 0; items && i < res->nitems; i++) {
		const struct spike_item *it = &res->items[i];

		o = json_pack("{sssisssisssisIsfsf}", "kind",
			      kind_name(it->kind), "id", it->id, "name",
			      it->name, "pid", it->pid, "comm", it->comm,
			      "prio", it->prio, "start_ns",
			      (json_int_t)it->start_ns, "window_us",
			      us(it->window_ns), "total_us", us(it->total_ns));
		if (!o || json_array_append_new(items, o)) {
			json_decref(items);
			return NULL;
		}
	}
	root = json_pack("{ss ss ss sI si ss sI sI so"
			 " s{sIsIsIsIsI} sf sf sf sf"
			 " so so sf sf"
			 " sf sf sf sf so so}",
			 "file", res->file, "uname", res->uname, "release",
			 res->release, "events", (json_int_t)res->nevents,
			 "cpu", res->cpu, "source",
			 res->source == SPIKE_SOURCE_TRACEMARK ? "tracemark" :
			 res->source == SPIKE_SOURCE_SNAPSHOT  ? "snapshot" :
								 "wakeup",
			 "lat_us", (json_int_t)res->lat_us, "threshold_us",
			 (json_int_t)res->threshold_us, "thread",
			 task_json(&res->thread, true), "ts_ns", "expiry",
			 (json_int_t)res->expiry_ns, "timer_irq",
			 (json_int_t)res->timer_ns, "wakeup",
			 (json_int_t)res->wakeup_ns, "switch_in",
			 (json_int_t)res->run_ns, "end",
			 (json_int_t)res->end_ns, "window_us",
			 us(window_ns(res)), "irq_delay_us",
			 us(res->irq_delay_ns), "timer_irq_us",
			 us(res->timer_irq_ns), "wakeup_to_run_us",
			 us(res->wakeup_to_run_ns), "at_expiry",
			 task_json(&res->at_expiry, res->has_at_expiry),
			 "blocking",
			 task_json(&res->blocking, res->has_blocking),
			 "blocking_window_us", us(res->blocking_window_ns),
			 "blocking_ran_us", us(res->blocking_stint_ns),
			 "irq_us", us(res->irq_ns), "softirq_us",
			 us(res->softirq_ns), "thread_us", us(res->thread_ns),
			 "self_us", us(res->self_ns), "silent",
			 res->silent_ns ?
				 json_pack("{sIsfso}", "start_ns",
					   (json_int_t)res->silent_start_ns,
					   "us", us(res->silent_ns), "task",
					   task_json(&res->silent_task, true)) :
				 json_null(),
			 "items", items);
	if (!root)
		return NULL;
	s = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(root);
	return s;
}
