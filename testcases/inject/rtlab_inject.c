// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab_inject: a known latency, on purpose, so the lab can measure whether
 * it catches one.  One kthread per chosen CPU ("rtlab_inject/N") sleeps
 * period_ms give or take a random jitter, then spins spin_us with
 * preemption (mode=preempt) or interrupts (mode=irq) disabled.
 *
 * The jitter matters: on a board whose clock counts instructions (QEMU
 * icount) a strictly periodic injector can phase-lock with cyclictest and
 * never overlap a measurement.  The random stream is seeded from the
 * `seed` parameter (0: a random seed, then shown in the parameter) so a
 * run can be repeated exactly; `injections` counts the spins done.
 *
 *   insmod rtlab_inject.ko spin_us=300 period_ms=100 jitter_pct=50 \
 *          mode=preempt seed=42
 *   cat /sys/module/rtlab_inject/parameters/injections
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
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
MODULE_PARM_DESC(mode, "preempt (preempt_disable) or irq (local_irq_save)");

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

static bool irq_mode;
static struct task_struct **threads;

static void inject_spin(void)
{
	unsigned long flags = 0;
	ktime_t t0;

	if (irq_mode)
		local_irq_save(flags);
	else
		preempt_disable();
	t0 = ktime_get();
	while (ktime_us_delta(ktime_get(), t0) < spin_us)
		cpu_relax();
	if (irq_mode)
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

	if (!strcmp(mode, "preempt")) {
		irq_mode = false;
	} else if (!strcmp(mode, "irq")) {
		irq_mode = true;
	} else {
		pr_err("rtlab_inject: mode=%s: expected preempt or irq\n", mode);
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
	inject_stop_all();
	pr_info("rtlab_inject: stopped after %lld injections (seed=%llu)\n",
		atomic64_read(&injected), seed);
}

module_init(inject_init);
module_exit(inject_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtlab latency injector: jittered preempt-off or irq-off spins");
