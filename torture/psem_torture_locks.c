// SPDX-License-Identifier: GPL-2.0
/*
 * psem_torture: the rwlock and mutex phases: the locks under test, their
 * critical sections and the checks inside them.
 */

#include "psem_torture.h"

#define TT_DATA_WORDS	4

static struct psem_rwlock tt_rw;	/* rwlock phase */
static struct psem_mutex tt_mx;		/* mutex phase */
/* What the critical sections share. */
static unsigned long tt_data[TT_DATA_WORDS];	/* written by exclusive holders */
static unsigned long tt_cs_count;		/* ++ in each exclusive section */
static atomic_long_t tt_cs_expected;		/* exclusive sections entered */
static atomic_t tt_readers;
static atomic_t tt_writers;
static bool tt_marked;	/* busted: marked accesses, so that KCSAN stays quiet */

/* ---------------------------------------------------------------------- */
/* The locks under test.                                                   */

/*
 * A lock call of struct tt_lock, @_fn: @_try, or as @how says the sleeping
 * @_lock or its _interruptible or _killable form, on @_obj; a sleeping one
 * is recorded as a wait for @_need of @_obj's permits.
 */
#define TT_LOCK_CALL(_fn, _obj, _need, _try, _lock)			\
static int _fn(struct tt_thread *t, enum tt_how how)			\
{									\
	typeof(_obj) lk = (_obj);					\
	int ret = 0;							\
									\
	if (how == TT_TRY)						\
		return _try(lk) ? 0 : -EBUSY;				\
	tt_wait_begin(t, &lk->sem, _need, how == TT_INTR);		\
	if (how == TT_INTR)						\
		ret = _lock##_interruptible(lk);			\
	else if (how == TT_KILL)					\
		ret = _lock##_killable(lk);				\
	else								\
		_lock(lk);						\
	tt_wait_end(t);							\
	return ret;							\
}

TT_LOCK_CALL(tt_rw_write_lock, &tt_rw, PSEM_RWLOCK_MAX_READERS,
	     psem_write_trylock, psem_write_lock)
TT_LOCK_CALL(tt_rw_read_lock, &tt_rw, 1, psem_read_trylock, psem_read_lock)
static void tt_rw_write_unlock(struct tt_thread *t)
{
	psem_write_unlock(&tt_rw);
}

static void tt_rw_read_unlock(struct tt_thread *t)
{
	psem_read_unlock(&tt_rw);
}

static void tt_rw_downgrade(struct tt_thread *t)
{
	psem_downgrade_write(&tt_rw);
}

static const struct tt_lock tt_rwlock = {
	.wlock		= tt_rw_write_lock,
	.wunlock	= tt_rw_write_unlock,
	.rlock		= tt_rw_read_lock,
	.runlock	= tt_rw_read_unlock,
	.downgrade	= tt_rw_downgrade,
	.sem		= &tt_rw.sem,
	.full		= PSEM_RWLOCK_MAX_READERS,
};

TT_LOCK_CALL(tt_mx_lock, &tt_mx, 1, psem_mutex_trylock, psem_mutex_lock)

static void tt_mx_unlock(struct tt_thread *t)
{
	psem_mutex_unlock(&tt_mx);
}

static const struct tt_lock tt_mutex = {
	.wlock		= tt_mx_lock,
	.wunlock	= tt_mx_unlock,
	.sem		= &tt_mx.sem,
	.full		= 1,
};

/* ---------------------------------------------------------------------- */
/* The lock step, the real and the busted locks' alike.                    */

/* Plain accesses for the real locks (KCSAN checks them), marked if busted. */
static unsigned long tt_data_get(int i)
{
	return tt_marked ? READ_ONCE(tt_data[i]) : tt_data[i];
}

static void tt_data_set(int i, unsigned long v)
{
	if (tt_marked)
		WRITE_ONCE(tt_data[i], v);
	else
		tt_data[i] = v;
}

static void tt_cs_count_inc(void)
{
	if (tt_marked)
		WRITE_ONCE(tt_cs_count, READ_ONCE(tt_cs_count) + 1);
	else
		tt_cs_count++;
}

/* All words equal: a reader must never see a writer's half-done update. */
static unsigned long tt_data_check(const char *who)
{
	unsigned long v = tt_data_get(0);
	int i;

	for (i = 1; i < TT_DATA_WORDS; i++) {
		unsigned long w = tt_data_get(i);

		if (w != v) {
			tt_viol_err("%s: %s saw torn data: word 0 is %lu, word %d is %lu\n",
				    tt_phase_name(), who, v, i, w);
			break;
		}
	}
	return v;
}

static void tt_write_cs(struct tt_thread *t)
{
	const struct tt_lock *ops = tt_cur->lock;
	int w = atomic_inc_return(&tt_writers);
	int r = atomic_read(&tt_readers);
	unsigned long v;
	int i;

	if (w != 1 || r)
		tt_viol_err("%s: writer %d entered with %d writers and %d readers inside\n",
			    tt_phase_name(), t->id, w - 1, r);
	if (!ops->busted) {
		long avail = psem_available(ops->sem);

		if (avail)
			tt_viol_err("%s: writer %d holds the lock, yet %ld permits are available\n",
				    tt_phase_name(), t->id, avail);
		ASSERT_EXCLUSIVE_ACCESS(tt_data);
	}
	v = tt_data_check("writer") + 1;
	for (i = 0; i < TT_DATA_WORDS; i++) {
		tt_data_set(i, v);
		if (i == 1)
			udelay(tt_rand(t, 5));
	}
	tt_cs_count_inc();
	atomic_long_inc(&tt_cs_expected);
	tt_hold_delay(t);
	w = atomic_read(&tt_writers);
	r = atomic_read(&tt_readers);
	if (w != 1 || r)
		tt_viol_err("%s: writer %d found %d writers and %d readers beside it\n",
			    tt_phase_name(), t->id, w - 1, r);
	atomic_dec(&tt_writers);
}

/* @counted: the reader is already in tt_readers (a downgraded writer). */
static void tt_read_cs(struct tt_thread *t, bool counted)
{
	const struct tt_lock *ops = tt_cur->lock;
	int w;
	unsigned long v;

	if (!counted)
		atomic_inc(&tt_readers);
	w = atomic_read(&tt_writers);
	if (w)
		tt_viol_err("%s: reader %d entered with %d writers inside\n",
			    tt_phase_name(), t->id, w);
	if (!ops->busted) {
		long avail = psem_available(ops->sem);

		if (avail > ops->full - 1)
			tt_viol_err("%s: reader %d holds the lock, yet %ld permits are available\n",
				    tt_phase_name(), t->id, avail);
		ASSERT_EXCLUSIVE_WRITER(tt_data);
	}
	v = tt_data_check("reader");
	tt_hold_delay(t);
	if (tt_data_check("reader") != v)
		tt_viol_err("%s: data changed under reader %d\n", tt_phase_name(), t->id);
	w = atomic_read(&tt_writers);
	if (w)
		tt_viol_err("%s: reader %d found %d writers beside it\n",
			    tt_phase_name(), t->id, w);
	atomic_dec(&tt_readers);
}

/* Checks a lock call's result; true if the lock is not held. */
static bool tt_lock_failed(struct tt_thread *t, enum tt_how how, int ret,
			   const char *side)
{
	if (!ret)
		return false;
	if (ret == -EBUSY && how == TT_TRY) {
		tt_inc(&t->busy);
	} else if (ret == -EINTR && how == TT_INTR) {
		tt_inc(&t->eintr);
		tt_flush_signals();
	} else {
		tt_viol_err("%s: %s %s lock returned %d\n", tt_phase_name(),
			    tt_how_names[how], side, ret);
	}
	return true;
}

void tt_lock_step(struct tt_thread *t)
{
	const struct tt_lock *ops = tt_cur->lock;
	enum tt_how how = tt_rand(t, TT_TIMEOUT);	/* PLAIN..TRY */
	int ret;

	if (!ops->rlock || !tt_rand(t, 4)) {
		ret = ops->wlock(t, how);
		if (tt_lock_failed(t, how, ret, "write"))
			return;
		tt_write_cs(t);
		if (ops->downgrade && !tt_rand(t, 4)) {
			atomic_inc(&tt_readers);
			ops->downgrade(t);
			tt_read_cs(t, true);
			ops->runlock(t);
		} else {
			ops->wunlock(t);
		}
	} else {
		ret = ops->rlock(t, how);
		if (tt_lock_failed(t, how, ret, "read"))
			return;
		tt_read_cs(t, false);
		ops->runlock(t);
	}
	if (!(t->ops % 32))
		tt_check_invariant(ops->sem, tt_phase_name());
	if (!tt_rand(t, 8))
		tt_hold_delay(t);
}

/* Every lock phase's start: the shared data, empty. */
void tt_lock_reset(void)
{
	memset(tt_data, 0, sizeof(tt_data));
	tt_cs_count = 0;
	atomic_long_set(&tt_cs_expected, 0);
	atomic_set(&tt_readers, 0);
	atomic_set(&tt_writers, 0);
	tt_marked = tt_cur->lock->busted;
}

/* The monitor's bounds. */
void tt_lock_monitor(void)
{
	const struct tt_lock *ops = tt_cur->lock;
	int w = atomic_read(&tt_writers);

	if (w < 0 || (w > 1 && !ops->busted))
		tt_viol_err("%s: monitor: %d writers inside\n", tt_phase_name(), w);
	if (psem_available(ops->sem) > ops->full)
		tt_viol_err("%s: monitor: %ld permits available, only %ld exist\n",
			    tt_phase_name(), psem_available(ops->sem), ops->full);
}

/* All workers paused: the lock free, nobody inside, no update lost. */
void tt_lock_quiescent(int stage)
{
	const struct tt_lock *ops = tt_cur->lock;
	long avail = psem_available(ops->sem);
	unsigned long debt = psem_debt(ops->sem);
	bool waiters = tt_has_waiters(ops->sem);

	if (avail != ops->full || debt || waiters)
		tt_viol_err("%s: paused: available %ld (expected %ld), debt %lu, waiters: %s\n",
			    tt_phase_name(), avail, ops->full, debt, waiters ? "yes" : "no");
	if (atomic_read(&tt_readers) || atomic_read(&tt_writers))
		tt_viol_err("%s: paused: %d readers and %d writers still inside\n",
			    tt_phase_name(), atomic_read(&tt_readers), atomic_read(&tt_writers));
	if (tt_cs_count != atomic_long_read(&tt_cs_expected))
		tt_viol_err("%s: lost updates: %lu exclusive sections counted, %ld entered\n",
			    tt_phase_name(), tt_cs_count, atomic_long_read(&tt_cs_expected));
}

/* Workers stuck at the end: give them the whole lock's permits. */
void tt_lock_rescue(void)
{
	psem_release_all_held(tt_cur->lock->sem, tt_cur->lock->full);
}

static void tt_rwlock_init(void)
{
	psem_rwlock_init(&tt_rw);
	tt_lock_reset();
}

static void tt_mutex_init(void)
{
	psem_mutex_init(&tt_mx);
	tt_lock_reset();
}

const struct psem_torture_ops tt_rwlock_ops =
	TT_LOCK_PHASE_OPS("rwlock", &tt_rw.sem, &tt_rwlock, tt_rwlock_init);

const struct psem_torture_ops tt_mutex_ops =
	TT_LOCK_PHASE_OPS("mutex", &tt_mx.sem, &tt_mutex, tt_mutex_init);
