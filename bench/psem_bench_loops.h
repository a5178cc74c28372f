/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_bench_loops.h: psem's and the floor's loop bodies and the round
 * runner of the benchmark cells of psem_bench_cells.h, shared by the
 * in-kernel benchmark (bench/psem_bench.c) and the native one
 * (tools/psem-user/native/bench_native.c). Each includes it once, after
 * psem_bench_cells.h and its own environment layer (listed there).
 */
#ifndef PSEM_BENCH_LOOPS_H
#define PSEM_BENCH_LOOPS_H

typedef u64 (*bench_loop_t)(struct bench_obj *o, unsigned int n,
			    unsigned int steps, u64 x);

/* The environment's half, defined below its #include of this file. */
static bench_loop_t bench_ref_loop(enum bench_op op, int impl);
static int bench_measure(const struct bench_cell *c, enum bench_variant v,
			 unsigned int nthreads, unsigned int n,
			 unsigned int steps, struct bench_sample *s);
static bench_val_t bench_median(bench_val_t *v, unsigned int n);
static const char *bench_fmt(char *buf, bench_val_t v);
static void bench_after_round(const struct bench_cell *c,
			      unsigned int nthreads, const char *gap,
			      enum bench_variant v, unsigned int r,
			      const struct bench_sample *s);

/* ------------------------------------------------------------------ */
/* The loops: psem's and the floor's, the same in both environments    */
/* ------------------------------------------------------------------ */

/*
 * The gap: a chain of dependent multiply-adds between a release and the
 * next acquire (or, in the held cell, inside the read section).
 * OPTIMIZER_HIDE_VAR() keeps every step opaque, so the compiler can neither
 * fold the chain nor overlap it with the lock operations around it.
 */
static noinline u64 bench_gap(u64 x, unsigned int steps)
{
	unsigned int i;

	for (i = 0; i < steps; i++) {
		x = x * 0x5851f42d4c957f2dULL + 0x14057b7ef767814fULL;
		OPTIMIZER_HIDE_VAR(x);
	}
	return x;
}

/* No call at all for a gap of none. */
static __always_inline u64 bench_maybe_gap(u64 x, unsigned int steps)
{
	return steps ? bench_gap(x, steps) : x;
}

/* A failed operation: counted, and the measurement is void. */
static __always_inline void bench_error(struct bench_obj *o)
{
	atomic_inc(&o->errors);
}

/*
 * The floor: the least an acquire/release pair can cost, a bare
 * compare-exchange pair on one word, each out of line as psem's calls are.
 * Acquire on the take, release on the give: the orders a semaphore needs.
 * One out-of-line copy per amount, so that the amount is a constant in it,
 * as it is in the kernel's copy that the recorded figures measured.
 */
static __always_inline bool floor_acquire(atomic_long_t *w, long n)
{
	long cur = atomic_long_read(w);

	do {
		if (cur < n)
			return false;
	} while (!atomic_long_try_cmpxchg_acquire(w, &cur, cur - n));
	return true;
}

static __always_inline void floor_release(atomic_long_t *w, long n)
{
	long cur = atomic_long_read(w);

	/* Release: pairs with floor_acquire()'s acquire. */
	while (!atomic_long_try_cmpxchg_release(w, &cur, cur + n))
		;
}

static noinline bool floor_acquire1(atomic_long_t *w)
{
	return floor_acquire(w, 1);
}

static noinline void floor_release1(atomic_long_t *w)
{
	floor_release(w, 1);
}

static noinline bool floor_acquire2(atomic_long_t *w)
{
	return floor_acquire(w, 2);
}

static noinline void floor_release2(atomic_long_t *w)
{
	floor_release(w, 2);
}

/*
 * The loops, one per operation and implementation: @n iterations, the gap
 * of @steps between a release and the next acquire (inside the read
 * section in the held cell), @x the gap chain's value. Each is one of the
 * shapes below, filled in with expressions in the loop's bench_obj @o:
 *
 * BENCH_LOOP(op, impl, gap, take, give) defines loop_<op>_<impl>: @take,
 * true when it took (BENCH_OK() of a take that cannot fail; a failed take
 * is counted and skipped), then @give, with the gap after them
 * (OP_RW_READ, OP_TAKE2, OP_TAKE1), inside (OP_RW_HELD) or nowhere
 * (OP_WRITE, OP_TRY, OP_MUTEX).
 * BENCH_LOOP_R8W1(impl, ...): OP_R8W1's eight read locks, their unlocks,
 * a write lock and unlock.
 * BENCH_LOOP_POOL(impl, get, put): OP_POOL's @get of an object into obj
 * and @put of it back, true when it put (a failed put is counted).
 *
 * Macros, not functions taking the primitives, so that the timed code of
 * a loop is the primitives' calls and nothing more: the constant tests of
 * BENCH_OK() and of @gap fold away.
 */
enum bench_gap_at { BENCH_GAP_NONE, BENCH_GAP_AFTER, BENCH_GAP_INSIDE };

#define BENCH_OK(...)	({ __VA_ARGS__; true; })

#define BENCH_LOOP(op, impl, gap, take, give)				\
static u64 loop_##op##_##impl(struct bench_obj *o, unsigned int n,	\
			      unsigned int steps, u64 x)		\
{									\
	const enum bench_gap_at at = (gap);				\
									\
	while (n--) {							\
		if (unlikely(!(take))) {				\
			bench_error(o);					\
			continue;					\
		}							\
		if (at == BENCH_GAP_INSIDE)				\
			x = bench_maybe_gap(x, steps);			\
		give;							\
		if (at == BENCH_GAP_AFTER)				\
			x = bench_maybe_gap(x, steps);			\
	}								\
	return x;							\
}

#define BENCH_LOOP_R8W1(impl, rlock, runlock, wlock, wunlock)		\
static u64 loop_r8w1_##impl(struct bench_obj *o, unsigned int n,	\
			    unsigned int steps, u64 x)			\
{									\
	int i;								\
									\
	while (n--) {							\
		for (i = 0; i < 8; i++)					\
			rlock;						\
		for (i = 0; i < 8; i++)					\
			runlock;					\
		wlock;							\
		wunlock;						\
	}								\
	return x;							\
}

#define BENCH_LOOP_POOL(impl, get, put)					\
static u64 loop_pool_##impl(struct bench_obj *o, unsigned int n,	\
			    unsigned int steps, u64 x)			\
{									\
	while (n--) {							\
		void *obj = (get);					\
									\
		if (unlikely(!(put)))					\
			bench_error(o);					\
	}								\
	return x;							\
}

/* The table of an implementation whose loops are loop_<op>_<impl>. */
#define BENCH_LOOPS_OF(impl) {						\
	[OP_RW_READ]	= loop_rw_read_##impl,				\
	[OP_RW_HELD]	= loop_rw_held_##impl,				\
	[OP_TAKE2]	= loop_take2_##impl,				\
	[OP_TAKE1]	= loop_take1_##impl,				\
	[OP_R8W1]	= loop_r8w1_##impl,				\
	[OP_WRITE]	= loop_write_##impl,				\
	[OP_TRY]	= loop_try_##impl,				\
	[OP_POOL]	= loop_pool_##impl,				\
	[OP_MUTEX]	= loop_mutex_##impl,				\
}

BENCH_LOOP(rw_read, psem, BENCH_GAP_AFTER,
	   BENCH_OK(psem_read_lock(&o->rw)), psem_read_unlock(&o->rw))
BENCH_LOOP(rw_held, psem, BENCH_GAP_INSIDE,
	   BENCH_OK(psem_read_lock(&o->rw)), psem_read_unlock(&o->rw))
/* An open psem of enough permits: psem_acquire() cannot fail (counted). */
BENCH_LOOP(take2, psem, BENCH_GAP_AFTER,
	   !psem_acquire(&o->sem, 2), psem_release(&o->sem, 2))
BENCH_LOOP(take1, psem, BENCH_GAP_AFTER,
	   !psem_acquire(&o->sem, 1), psem_release(&o->sem, 1))
BENCH_LOOP_R8W1(psem, psem_read_lock(&o->rw),
		psem_read_unlock(&o->rw), psem_write_lock(&o->rw),
		psem_write_unlock(&o->rw))
BENCH_LOOP(write, psem, BENCH_GAP_NONE,
	   BENCH_OK(psem_write_lock(&o->rw)), psem_write_unlock(&o->rw))
BENCH_LOOP(try, psem, BENCH_GAP_NONE,
	   psem_try_acquire(&o->sem, 1), psem_release(&o->sem, 1))
BENCH_LOOP_POOL(psem, psem_pool_get(&o->pool),
		!psem_pool_put(&o->pool, obj))
BENCH_LOOP(mutex, psem, BENCH_GAP_NONE,
	   BENCH_OK(psem_mutex_lock(&o->mx)), psem_mutex_unlock(&o->mx))

/* The floor's take1 loop serves OP_RW_READ too: one word, one unit. */
BENCH_LOOP(take1, floor, BENCH_GAP_AFTER,
	   floor_acquire1(&o->word), floor_release1(&o->word))
BENCH_LOOP(rw_held, floor, BENCH_GAP_INSIDE,
	   floor_acquire1(&o->word), floor_release1(&o->word))
BENCH_LOOP(take2, floor, BENCH_GAP_AFTER,
	   floor_acquire2(&o->word), floor_release2(&o->word))
BENCH_LOOP(try, floor, BENCH_GAP_NONE,
	   floor_acquire1(&o->word), floor_release1(&o->word))

static const bench_loop_t psem_loops[NR_OPS] = BENCH_LOOPS_OF(psem);

static const bench_loop_t floor_loops[NR_OPS] = {
	[OP_RW_READ]	= loop_take1_floor,
	[OP_RW_HELD]	= loop_rw_held_floor,
	[OP_TAKE2]	= loop_take2_floor,
	[OP_TAKE1]	= loop_take1_floor,
	[OP_TRY]	= loop_try_floor,
};

/* The loop of @c for variant @v, or NULL where the cell has none. */
static bench_loop_t bench_loop(const struct bench_cell *c,
			       enum bench_variant v)
{
	int impl = variant_impl(v);

	if (c->op == OP_NONE)
		return NULL;
	if (impl == IMPL_PSEM)
		return psem_loops[c->op];
	if (impl == IMPL_FLOOR)
		return c->floor && (c->table != T_CONTENTION ||
				    BENCH_FLOOR_CONTENTION) ?
			floor_loops[c->op] : NULL;
	return bench_ref_loop(c->op, impl);
}

/*
 * psem's release rules as its switches (psem_knobs.h) set them: the rule of
 * each psem variant (see enum bench_variant), set before its measurements.
 */
struct bench_rule {
	bool fast, zero, flag;
};

static const struct bench_rule bench_rules[V_REFS] = {
	[V_LOCKED]		= { .fast = false },
	[V_POSITIVE]		= { .fast = true },
	[V_POSITIVE_FLAG]	= { .fast = true, .flag = true },
	[V_PSEM]		= { .fast = true, .zero = true, .flag = true },
};

static void bench_rule_set(const struct bench_rule *r)
{
	psem_set_fast_release(r->fast);
	psem_set_zero_release(r->zero);
	psem_set_contention_flag(r->flag);
}

/* Sets psem's switches for @v; a no-op for the other variants. */
static void variant_apply(enum bench_variant v)
{
	if (variant_impl(v) == IMPL_PSEM)
		bench_rule_set(&bench_rules[v]);
}

/* psem's rule and statistics as the run found them, put back at its end. */
struct bench_switches {
	struct bench_rule	rule;
	bool			stats;
};

static void bench_switches_save(struct bench_switches *s)
{
	s->rule.fast = psem_fast_release_enabled();
	s->rule.zero = psem_zero_release_enabled();
	s->rule.flag = psem_contention_flag_enabled();
	s->stats = psem_stats_enabled();
	if (s->stats)
		psem_set_stats(false);
}

static void bench_switches_restore(const struct bench_switches *s)
{
	bench_rule_set(&s->rule);
	psem_set_stats(s->stats);
}

/* psem's primitives of one measurement, fresh: @c's permits. */
static int bench_psem_init(struct bench_obj *o, const struct bench_cell *c)
{
	void *objs[BENCH_POOL_CAP];
	int i;

	o->permits = c->permits;
	o->count = c->count;
	psem_init(&o->sem, c->permits);
	psem_rwlock_init(&o->rw);
	psem_mutex_init(&o->mx);
	atomic_long_set(&o->word, c->count);
	atomic_set(&o->errors, 0);
	for (i = 0; i < BENCH_POOL_CAP; i++)
		objs[i] = &o->pool_items[i];
	return psem_pool_init(&o->pool, objs, BENCH_POOL_CAP, GFP_KERNEL);
}

/*
 * The failed operations plus psem's primitives (and the floor's word) not
 * back where they started; destroys the pool. Nonzero voids the run.
 */
static int bench_psem_check(struct bench_obj *o)
{
	int bad = atomic_read(&o->errors);

	if (psem_available(&o->sem) != o->permits)
		bad++;
	if (psem_available(&o->rw.sem) != PSEM_RWLOCK_MAX_READERS)
		bad++;
	if (psem_mutex_is_locked(&o->mx))
		bad++;
	if (psem_available(&o->pool.sem) != BENCH_POOL_CAP)
		bad++;
	if (atomic_long_read(&o->word) != o->count)
		bad++;
	psem_pool_destroy(&o->pool);
	return bad;
}

/*
 * What one thread of a measurement measured, in its environment's clocks:
 * its timed loop, the window from its wake-up to the loop's end and its
 * CPU time in it, its context switches, its instructions (native, where
 * counted) and its gap chain's end.
 */
struct bench_figures {
	u64		loop_ns, win_ns, cpu_ns, insns, sink;
	unsigned long	nvcsw, nivcsw;
};

static void bench_figures_add(struct bench_figures *sum,
			      const struct bench_figures *f)
{
	sum->loop_ns += f->loop_ns;
	sum->win_ns += f->win_ns;
	sum->cpu_ns += f->cpu_ns;
	sum->insns += f->insns;
	sum->sink ^= f->sink;
	sum->nvcsw += f->nvcsw;
	sum->nivcsw += f->nivcsw;
}

static u64 bench_sink;

/*
 * The sample of @sum, the figures of @nthreads threads of @n iterations
 * each: means over the threads, per iteration (bench_ratio(), the
 * environment's division, in its bench_val_t).
 */
static void bench_sample_set(struct bench_sample *s,
			     const struct bench_figures *sum,
			     unsigned int n, unsigned int nthreads)
{
	u64 iters = (u64)n * nthreads;

	s->ns = bench_ratio(sum->loop_ns, iters, 1);
	s->cpu_pct = sum->win_ns ? bench_ratio(sum->cpu_ns, sum->win_ns, 100) : 0;
	s->vcsw_1k = bench_ratio(sum->nvcsw, iters, 1000);
	s->ivcsw_1k = bench_ratio(sum->nivcsw, iters, 1000);
	/* Keep the gap chains alive: their results reach memory. */
	WRITE_ONCE(bench_sink, sum->sink);
}

/* ------------------------------------------------------------------ */
/* Parameters: the selections, by name                                 */
/* ------------------------------------------------------------------ */

static unsigned long sel_cells;		/* bit per bench_cells[] entry */
static unsigned long sel_gaps;		/* bit per bench_gap_kind */
static unsigned long sel_variants;	/* bit per bench_variant */
static unsigned long sel_tables;	/* bit per bench_table */
static unsigned int sel_threads[BENCH_MAX_THREAD_SETS];
static unsigned int nr_sel_threads;

/*
 * Parses a comma-separated list of names into a bit mask. "all" selects
 * every name. Returns -EINVAL, with a message, for an unknown name.
 */
static int parse_names(const char *param, const char *list,
		       const char *const *names, int nr, unsigned long *mask)
{
	char *buf, *p, *tok;
	int ret = 0;

	buf = bench_strdup(list);
	if (!buf)
		return -ENOMEM;
	*mask = 0;
	p = buf;
	while ((tok = strsep(&p, ",")) != NULL) {
		int i;

		tok = bench_trim(tok);
		if (!*tok)
			continue;
		if (!strcmp(tok, "all")) {
			*mask |= BIT(nr) - 1;
			continue;
		}
		for (i = 0; i < nr; i++)
			if (!strcmp(tok, names[i]))
				break;
		if (i == nr) {
			bench_err("unknown %s '%s'\n", param, tok);
			ret = -EINVAL;
			break;
		}
		*mask |= BIT(i);
	}
	if (!ret && !*mask) {
		bench_err("%s selects nothing\n", param);
		ret = -EINVAL;
	}
	bench_free(buf);
	return ret;
}

static int parse_threads(void)
{
	char *buf, *p, *tok;
	int ret = 0;

	buf = bench_strdup(threads);
	if (!buf)
		return -ENOMEM;
	nr_sel_threads = 0;
	p = buf;
	while ((tok = strsep(&p, ",")) != NULL) {
		unsigned int n;

		tok = bench_trim(tok);
		if (!*tok)
			continue;
		if (bench_parse_uint(tok, &n) || !n) {
			bench_err("threads: '%s' is not a positive number\n",
				  tok);
			ret = -EINVAL;
			break;
		}
		if (n > bench_nr_cpus()) {
			bench_err("threads=%u exceeds the %u %s: each thread needs its own CPU\n",
				  n, bench_nr_cpus(), BENCH_CPUS_WHAT);
			ret = -EINVAL;
			break;
		}
		if (nr_sel_threads == BENCH_MAX_THREAD_SETS) {
			bench_err("threads: at most %d counts\n",
				  BENCH_MAX_THREAD_SETS);
			ret = -EINVAL;
			break;
		}
		sel_threads[nr_sel_threads++] = n;
	}
	if (!ret && !nr_sel_threads) {
		bench_err("threads selects nothing\n");
		ret = -EINVAL;
	}
	bench_free(buf);
	return ret;
}

static int parse_params(void)
{
	const char *cell_names[NR_CELLS];
	unsigned int i;
	int ret;

	bench_names_init();
	ret = parse_names("table", table, table_names, NR_TABLES, &sel_tables);
	if (ret)
		return ret;
	if (!iters || !single_iters) {
		bench_err("iters and single_iters must be at least 1\n");
		return -EINVAL;
	}
	if (!rounds || rounds > BENCH_MAX_ROUNDS) {
		bench_err("rounds must be 1..%d\n", BENCH_MAX_ROUNDS);
		return -EINVAL;
	}
	for (i = 0; i < NR_CELLS; i++)
		cell_names[i] = bench_cells[i].name;
	ret = parse_names("cell", cells, cell_names, NR_CELLS, &sel_cells);
	if (ret)
		return ret;
	ret = parse_names("gap", gaps, gap_names, NR_GAPS, &sel_gaps);
	if (ret)
		return ret;
	ret = parse_names("variant", variants, variant_names, NR_VARIANTS,
			  &sel_variants);
	if (ret)
		return ret;
	/* Thread counts matter, and are checked, only for contention cells. */
	return sel_tables & BIT(T_CONTENTION) ? parse_threads() : 0;
}

/* ------------------------------------------------------------------ */
/* Rounds, medians, records                                            */
/* ------------------------------------------------------------------ */

static unsigned long long stat_delta(const struct psem_stats *a,
				     const struct psem_stats *b, int s)
{
	return b->count[s] - a->count[s];
}

static void print_stats_delta(const struct bench_cell *c,
			      unsigned int nthreads, const char *gap,
			      enum bench_variant v, const struct psem_stats *a,
			      const struct psem_stats *b)
{
	bench_info("stats,%s,%s,%u,%s,%s,fast_release=%llu,locked_release=%llu,fast_cas_fail=%llu,flag_trip=%llu,flag_honoured=%llu,sleep=%llu,handoff=%llu\n",
		   table_names[c->table], c->name, nthreads, gap,
		   variant_names[v], stat_delta(a, b, PSEM_STAT_FAST_RELEASE),
		   stat_delta(a, b, PSEM_STAT_LOCKED_RELEASE),
		   stat_delta(a, b, PSEM_STAT_FAST_CAS_FAIL),
		   stat_delta(a, b, PSEM_STAT_FLAG_TRIP),
		   stat_delta(a, b, PSEM_STAT_FLAG_HONOURED),
		   stat_delta(a, b, PSEM_STAT_SLEEP),
		   stat_delta(a, b, PSEM_STAT_HANDOFF));
}

/* One measurement of @v, with psem's event counters around it if asked. */
static int bench_measure_variant(const struct bench_cell *c,
				 enum bench_variant v, unsigned int nthreads,
				 const char *gname, unsigned int n,
				 unsigned int steps, struct bench_sample *s)
{
	bool count = stats && variant_impl(v) == IMPL_PSEM;
	struct psem_stats a, b;
	int ret;

	variant_apply(v);
	if (count) {
		psem_stats_snapshot(&a);
		psem_set_stats(true);
	}
	ret = bench_measure(c, v, nthreads, n, steps, s);
	if (count) {
		psem_set_stats(false);
		psem_stats_snapshot(&b);
		print_stats_delta(c, nthreads, gname, v, &a, &b);
	}
	if (ret)
		bench_err("%s,%s,%u,%s,%s: measurement failed: %d\n",
			  table_names[c->table], c->name, nthreads, gname,
			  variant_names[v], ret);
	return ret;
}

#define FX_LEN 24

static unsigned int nr_cell_runs;	/* completed bench_cell_run()s */

/* Runs one cell at one thread count and gap, all variants interleaved. */
static int bench_cell_run(const struct bench_cell *c, unsigned int nthreads,
			  enum bench_gap_kind g)
{
	const char *tname = table_names[c->table], *gname = gap_names[g];
	unsigned int steps = g == G_SHORT ? short_gap : g == G_LONG ? long_gap : 0;
	unsigned int n = c->table == T_SINGLE ? single_iters : iters;
	char b0[FX_LEN], b1[FX_LEN], b2[FX_LEN], b3[FX_LEN], b4[FX_LEN];
	enum bench_variant vlist[NR_VARIANTS];
	unsigned int nv = 0, r, i;
	bench_val_t *val, *cpu, *csw;
	int ret = 0;

	for (i = 0; i < NR_VARIANTS; i++)
		if ((sel_variants & BIT(i)) && bench_loop(c, i))
			vlist[nv++] = i;
	if (!nv)
		return 0;

	val = bench_calloc(3 * NR_VARIANTS * rounds, sizeof(*val));
	if (!val)
		return -ENOMEM;
	cpu = val + NR_VARIANTS * rounds;
	csw = cpu + NR_VARIANTS * rounds;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nv; i++) {
			enum bench_variant v = vlist[i];
			struct bench_sample s = { 0 };

			ret = bench_measure_variant(c, v, nthreads, gname, n,
						    steps, &s);
			if (ret)
				goto out;
			val[v * rounds + r] = s.ns;
			cpu[v * rounds + r] = s.cpu_pct;
			csw[v * rounds + r] = s.vcsw_1k + s.ivcsw_1k;
			bench_info("round,%s,%s,%u,%s,%s,%u,%s,%s,%s,%s\n",
				   tname, c->name, nthreads, gname,
				   variant_names[v], r, bench_fmt(b0, s.ns),
				   bench_fmt(b1, s.cpu_pct),
				   bench_fmt(b2, s.vcsw_1k),
				   bench_fmt(b3, s.ivcsw_1k));
			bench_after_round(c, nthreads, gname, v, r, &s);
		}
	}

	for (i = 0; i < nv; i++) {
		enum bench_variant v = vlist[i];
		bench_val_t *vv = val + v * rounds;
		bench_val_t med = bench_median(vv, rounds);
		bench_val_t cp = bench_median(cpu + v * rounds, rounds);
		bench_val_t cs = bench_median(csw + v * rounds, rounds);

		/* The median sorted vv: its ends are the min and the max. */
		bench_info("csv,%s,%s,%u,%s,%s,%s,%s,%s,%u,%s,%s,\n",
			   tname, c->name, nthreads, gname, variant_names[v],
			   bench_fmt(b0, med), bench_fmt(b1, vv[0]),
			   bench_fmt(b2, vv[rounds - 1]), rounds,
			   bench_fmt(b3, cp), bench_fmt(b4, cs));
	}
	nr_cell_runs++;
out:
	bench_free(val);
	return ret;
}

/* Every selected loop cell; the latency table is the environment's. */
static int bench_run_cells(void)
{
	unsigned int ci, ti;
	int g, ret;

	for (ci = 0; ci < NR_CELLS; ci++) {
		const struct bench_cell *c = &bench_cells[ci];

		if (!(sel_cells & BIT(ci)) || !(sel_tables & BIT(c->table)))
			continue;
		if (c->table == T_LATENCY)
			continue;
		if (c->table == T_SINGLE) {
			ret = bench_cell_run(c, 1, G_NONE);
			if (ret)
				return ret;
			continue;
		}
		for (ti = 0; ti < nr_sel_threads; ti++) {
			for (g = 0; g < NR_GAPS; g++) {
				if (!(sel_gaps & BIT(g)))
					continue;
				if (g == G_NONE && c->needs_gap)
					continue;
				ret = bench_cell_run(c, sel_threads[ti], g);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

#endif /* PSEM_BENCH_LOOPS_H */
