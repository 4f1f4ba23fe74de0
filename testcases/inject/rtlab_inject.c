// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab_inject: a known latency, on purpose, so the lab can measure whether
 * it catches one.  One kthread per chosen CPU ("rtlab_inject/N") sleeps
 * period_ms give or take a random jitter, then spins spin_us with
 * preemption (mode=preempt) or interrupts (mode=irq) disabled.
 *
 * mode=tick plants the stall in the tick itself instead: a kprobe on
 * `probe` (update_process_times(), which every tick runs in hard-irq
 * context) spins spin_us with interrupts off on every Nth tick of a chosen
 * CPU, N = period_ms in ticks (rounded up, at least 1; the jitter varies N,
 * never the phase).  That is a regression in tick-synchronous kernel work,
 * which a measuring interval dividing the tick period meets at one fixed
 * point of the stall, or never, on a deterministic board; the kthread
 * modes cannot imitate it.
 *
 * The jitter matters: on a board whose clock counts instructions (QEMU
 * icount) a strictly periodic injector can phase-lock with cyclictest and
 * never overlap a measurement.  The random stream is seeded from the
 * `seed` parameter (0: a random seed, then shown in the parameter) so a
 * run can be repeated exactly; `injections` counts the spins done.
 *
 *   insmod rtlab_inject.ko spin_us=300 period_ms=100 jitter_pct=50 \
 *          mode=preempt seed=42
 *   insmod rtlab_inject.ko spin_us=300 period_ms=4 jitter_pct=0 mode=tick
 *   cat /sys/module/rtlab_inject/parameters/injections
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#define INJECT_MAX_SPIN_US	100000	/* 100 ms: beyond, it is a hang */

static unsigned int spin_us = 200;
module_param(spin_us, uint, 0444);
MODULE_PARM_DESC(spin_us, "length of each spin, microseconds (1..100000)");

static unsigned int period_ms = 100;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "mean sleep between spins, milliseconds (>= 1)");

static unsigned int jitter_pct = 50;
module_param(jitter_pct, uint, 0444);
MODULE_PARM_DESC(jitter_pct,
		 "sleep varies uniformly by +/- this percentage (0..100)");

static char *mode = "preempt";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "preempt (preempt_disable), irq (local_irq_save) or tick (interrupts off in the tick)");

static char *probe = "update_process_times";
module_param(probe, charp, 0444);
MODULE_PARM_DESC(probe, "mode=tick: the function of the tick to stall in");

static unsigned int tick_every;
module_param(tick_every, uint, 0444);
MODULE_PARM_DESC(tick_every,
		 "mode=tick: mean ticks between spins, from period_ms and HZ (read-only)");

static unsigned long cpus;
module_param(cpus, ulong, 0444);
MODULE_PARM_DESC(cpus, "CPU mask to inject on (0: every online CPU)");

static unsigned long long seed;
module_param(seed, ullong, 0444);
MODULE_PARM_DESC(seed, "seed of the jitter (0: random; the one used is shown)");

static atomic64_t injected = ATOMIC64_INIT(0);

static int injections_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&injected));
}

static const struct kernel_param_ops injections_ops = {
	.get = injections_get,
};
module_param_cb(injections, &injections_ops, NULL, 0444);
MODULE_PARM_DESC(injections, "spins done so far (read-only)");

enum inject_mode { INJECT_PREEMPT, INJECT_IRQ, INJECT_TICK };

static enum inject_mode inject_mode;
static struct task_struct **threads;

static void inject_spin(void)
{
	unsigned long flags = 0;
	ktime_t t0;

	if (inject_mode == INJECT_IRQ)
		local_irq_save(flags);
	else
		preempt_disable();
	t0 = ktime_get();
	while (ktime_us_delta(ktime_get(), t0) < spin_us)
		cpu_relax();
	if (inject_mode == INJECT_IRQ)
		local_irq_restore(flags);
	else
		preempt_enable();
	atomic64_inc(&injected);
}

/* period_ms +/- jitter_pct %, uniformly, in nanoseconds. */
static u64 inject_sleep_ns(struct rnd_state *rnd)
{
	u64 period_ns = (u64)period_ms * NSEC_PER_MSEC;
	u64 span_ns = period_ns * jitter_pct / 100;
	u64 r;

	if (!span_ns)
		return period_ns;
	r = ((u64)prandom_u32_state(rnd) << 32) | prandom_u32_state(rnd);
	r %= 2 * span_ns + 1;
	return period_ns - span_ns + r;
}

static int inject_thread(void *data)
{
	unsigned int cpu = (unsigned int)(unsigned long)data;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, seed + cpu);
	while (!kthread_should_stop()) {
		ktime_t t = ns_to_ktime(inject_sleep_ns(&rnd));

		/* An hrtimer, not msleep: jiffies would pin the spins to
		 * tick boundaries again. */
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		schedule_hrtimeout(&t, HRTIMER_MODE_REL);
		if (kthread_should_stop())
			break;
		inject_spin();
	}
	return 0;
}

/* ---- mode=tick: a stall inside the tick ---- */

struct tick_state {
	struct rnd_state rnd;
	unsigned int left;	/* ticks until the next spin */
	bool on;		/* this CPU is in the mask */
};

static DEFINE_PER_CPU(struct tick_state, tick_state);
static bool tick_registered;
static unsigned int tick_min_gap;	/* spins take at most half the time */

/* tick_every +/- jitter_pct %, uniformly, in ticks, at least tick_min_gap. */
static unsigned int tick_gap(struct rnd_state *rnd)
{
	unsigned int span = tick_every * jitter_pct / 100;
	unsigned int gap = tick_every;

	if (span)
		gap = tick_every - span +
		      prandom_u32_state(rnd) % (2 * span + 1);
	return max(gap, tick_min_gap);
}

/*
 * Runs at the entry of `probe`, from the tick: interrupts are already off
 * there; saving them anyway keeps a probe on some other function honest.
 * The fast clock, not ktime_get(): the probed function may run inside the
 * timekeeping update, whose sequence count ktime_get() would wait on.
 */
static int tick_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct tick_state *st = this_cpu_ptr(&tick_state);
	unsigned long flags;
	u64 t0;

	if (!st->on || --st->left)
		return 0;
	st->left = tick_gap(&st->rnd);
	local_irq_save(flags);
	t0 = ktime_get_mono_fast_ns();
	while (ktime_get_mono_fast_ns() - t0 < (u64)spin_us * NSEC_PER_USEC)
		cpu_relax();
	local_irq_restore(flags);
	atomic64_inc(&injected);
	return 0;
}

static struct kprobe tick_probe = {
	.pre_handler = tick_pre,
};

static int tick_start(unsigned int *started)
{
	unsigned int cpu;
	int ret;

	tick_every = max_t(u64, 1,
			   DIV_ROUND_UP_ULL((u64)period_ms * HZ, MSEC_PER_SEC));
	if ((u64)spin_us * 2 > (u64)tick_every * (USEC_PER_SEC / HZ)) {
		pr_err("rtlab_inject: mode=tick: spin_us=%u is more than half of %u tick(s) at HZ=%d\n",
		       spin_us, tick_every, HZ);
		return -EINVAL;
	}
	/* The jitter may shorten a gap, never below that: back to back,
	 * irq-off spins of several ticks would starve the CPU. */
	tick_min_gap = max(1u, DIV_ROUND_UP(spin_us * 2, USEC_PER_SEC / HZ));
	*started = 0;
	for_each_possible_cpu(cpu) {
		struct tick_state *st = per_cpu_ptr(&tick_state, cpu);

		prandom_seed_state(&st->rnd, seed + cpu);
		st->left = tick_gap(&st->rnd);
		st->on = !cpus ||
			 (cpu < BITS_PER_LONG && (cpus & (1UL << cpu)));
		if (st->on && cpu_online(cpu))
			(*started)++;
	}
	if (!*started) {
		pr_err("rtlab_inject: cpus=0x%lx: no online CPU in the mask\n",
		       cpus);
		return -EINVAL;
	}
	tick_probe.symbol_name = probe;
	ret = register_kprobe(&tick_probe);
	if (ret) {
		pr_err("rtlab_inject: mode=tick: kprobe on %s: error %d (no such function, or not probeable; needs CONFIG_KPROBES)\n",
		       probe, ret);
		return ret;
	}
	tick_registered = true;
	return 0;
}

static void tick_stop(void)
{
	if (!tick_registered)
		return;
	/* Returns once no CPU is in the handler any more. */
	unregister_kprobe(&tick_probe);
	tick_registered = false;
}

/* ---- mode=preempt, mode=irq: a kthread per CPU ---- */

static void inject_stop_all(void)
{
	unsigned int cpu;

	if (!threads)
		return;
	for_each_possible_cpu(cpu)
		if (threads[cpu])
			kthread_stop(threads[cpu]);
	kfree(threads);
	threads = NULL;
}

static int __init inject_init(void)
{
	unsigned int cpu, started = 0;
	int ret;

	if (!strcmp(mode, "preempt")) {
		inject_mode = INJECT_PREEMPT;
	} else if (!strcmp(mode, "irq")) {
		inject_mode = INJECT_IRQ;
	} else if (!strcmp(mode, "tick")) {
		inject_mode = INJECT_TICK;
	} else {
		pr_err("rtlab_inject: mode=%s: expected preempt, irq or tick\n",
		       mode);
		return -EINVAL;
	}
	if (!spin_us || spin_us > INJECT_MAX_SPIN_US || !period_ms ||
	    jitter_pct > 100) {
		pr_err("rtlab_inject: expected spin_us 1..%u, period_ms >= 1, jitter_pct 0..100; got %u, %u, %u\n",
		       INJECT_MAX_SPIN_US, spin_us, period_ms, jitter_pct);
		return -EINVAL;
	}
	if (!seed)
		seed = get_random_u64() | 1;
	if (inject_mode == INJECT_TICK) {
		ret = tick_start(&started);
		if (ret)
			return ret;
		pr_info("rtlab_inject: started on %u CPU(s): mode=tick probe=%s tick_every=%u hz=%d spin_us=%u period_ms=%u jitter_pct=%u seed=%llu cpus=0x%lx\n",
			started, probe, tick_every, HZ, spin_us, period_ms,
			jitter_pct, seed, cpus);
		return 0;
	}
	threads = kcalloc(nr_cpu_ids, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (cpus && (cpu >= BITS_PER_LONG || !(cpus & (1UL << cpu))))
			continue;
		t = kthread_create_on_cpu(inject_thread,
					  (void *)(unsigned long)cpu, cpu,
					  "rtlab_inject/%u");
		if (IS_ERR(t)) {
			cpus_read_unlock();
			inject_stop_all();
			return PTR_ERR(t);
		}
		threads[cpu] = t;
		wake_up_process(t);
		started++;
	}
	cpus_read_unlock();
	if (!started) {
		pr_err("rtlab_inject: cpus=0x%lx: no online CPU in the mask\n",
		       cpus);
		inject_stop_all();
		return -EINVAL;
	}
	pr_info("rtlab_inject: started on %u CPU(s): mode=%s spin_us=%u period_ms=%u jitter_pct=%u seed=%llu cpus=0x%lx\n",
		started, mode, spin_us, period_ms, jitter_pct, seed, cpus);
	return 0;
}

static void __exit inject_exit(void)
{
	tick_stop();
	inject_stop_all();
	pr_info("rtlab_inject: stopped after %lld injections (seed=%llu)\n",
		atomic64_read(&injected), seed);
}

module_init(inject_init);
module_exit(inject_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtlab latency injector: jittered preempt-off or irq-off spins, or irq-off spins in the tick");
