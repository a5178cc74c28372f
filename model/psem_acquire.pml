/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_acquire.pml - the acquire side of the model of psem: try_acquire,
 * the slow acquire (drain, link, sleep, cancel), the asynchronous acquire,
 * close and reopen, and reduce.
 *
 * Part of psem.pml, which includes it (spin runs the C preprocessor): see
 * psem.pml for the model, its configuration macros and the properties.
 */

/*
 * try_acquire(n): lock-free; ok = 1 on success. A closed word fails the
 * first test (in C it is negative). The first read of every acquire: with
 * CLOSE it also notes, as ghost, whether the call began closed.
 */
inline try_acquire(cnt)
{
#ifdef CLOSE
	d_step {
		cur = word;
		sc = ISCLOSED(cur);
		se = reopens
	};
#else
	cur = word;
#endif
	do
	:: BAL(cur) < cnt || (cur & BLOCKED) -> ok = 0; break
	:: else ->
		d_step {
			if
			:: word == cur ->
				word = cur - cnt * ONE;
				held[id] = held[id] + cnt;
				TOOK;
				ok = 1
			:: else -> cur = word; ok = 0
			fi
		};
		if
		:: ok -> break
		:: else -> skip
		fi
	od;
	cur = 0
}

/*
 * Under the lock: take min(balance, cnt); if that is not enough, the same
 * exchange leaves the word at exactly WAITERS. take = what was taken.
 */
inline drain_or_mark(cnt, nobit, isred)
{
	cur = word;
	do
	:: true ->
		d_step {
			take = MIN(BAL(cur), cnt);
			if
			:: take == cnt -> nw = cur - cnt * ONE
			:: else ->
				if
				:: cur & WAITERS ->
					/* I2: the debt rides along */
					nw = cur
				:: !(cur & WAITERS) && nobit ->
					nw = cur & BLOCKED
				:: !(cur & WAITERS) && !nobit ->
					nw = (cur & BLOCKED) | WAITERS
				fi
			fi;
#ifdef BROKEN_LINK_WITHOUT_DRAIN
			if
			:: take < cnt && !nobit -> take = 0; nw = cur | WAITERS
			:: else -> skip
			fi;
#endif
			if
			:: word == cur ->
				word = nw;
				if
				:: isred ->
					/* psem_owe(), merged: I2 */
					if
					:: cnt > take && debt == 0 ->
						word = word + (cnt - take) * ONE +
						       DEBTBIT(word);
						if
						:: word & DCLOSED ->
							EVENT(E_DEBT_CLOSED)
						:: else -> skip
						fi
					:: else ->
						word = word + (cnt - take) * ONE
					fi;
					held[id] = held[id] + cnt
				:: else -> acq[id] = take
				fi;
				ok = 1
			:: else -> cur = word; ok = 0
			fi
		};
		if
		:: ok -> ok = 0; break
		:: else -> skip
		fi
	od;
	cur = 0; nw = 0
}

/* Link at the tail for what drain_or_mark() could not take (in a d_step). */
inline link_waiter(cnt)
{
	want[id] = cnt;
	needed[id] = cnt - take;
	ticket[id] = qlen + 1;
	q[qlen] = id;
	qlen++;
	if
	:: qlen > 1 -> EVENT(E_TWO_WAITERS)
	:: else -> skip
	fi;
	linked[id] = 1;
	live[id] = 1;
	take = 0
}

/* Unlink waiter id, wherever it is in the queue (in a d_step). */
inline unlink_self()
{
	i = 0;
	do
	:: i < qlen && q[i] != id -> i++
	:: else -> break
	od;
	if
	:: i < qlen ->
		do
		:: i + 1 < qlen -> q[i] = q[i + 1]; i++
		:: else -> break
		od;
		qlen--;
		q[qlen] = 0;
		untick(id)
	:: else -> skip		/* not in the queue: a broken variant */
	fi;
	i = 0;
	linked[id] = 0;
	live[id] = 0;
	want[id] = 0;
	needed[id] = 0
}

/*
 * A sleeping waiter off the queue, done read (in a d_step): it holds its
 * whole count, or (closed) nothing, its partial grant given back already.
 */
inline woken(cnt)
{
	done[id] = 0;
	live[id] = 0;
#if EXT
	if
	:: how[id] == HOW_SERVED ->
		assert(acq[id] == cnt);
		held[id] = held[id] + acq[id];
		acq[id] = 0;
		TOOK;
		ok = 1
	:: else ->
		/* -ESHUTDOWN */
		assert(how[id] == HOW_SHUT && acq[id] == 0);
		ok = 0
	fi;
	how[id] = 0
#else
	held[id] = held[id] + acq[id];
	acq[id] = 0
#endif
}

/*
 * Under the lock, before draining [psem_refuse_wait()]: a closed psem
 * refuses with -ESHUTDOWN. The closed state changes only under the lock.
 */
#ifdef BROKEN_ACQUIRE_CLOSED
#define REFUSE_CLOSED	false
#else
#define REFUSE_CLOSED	ISCLOSED(word)
#endif

/* acquire(n), cancellable if canc; ok = 1 when the permits are held. */
inline acquire(cnt, canc)
{
	try_acquire(cnt);
	if
	:: ok -> skip
	:: else ->
		lock();
#ifdef CLOSE
		if
		:: REFUSE_CLOSED ->
			d_step { EVENT(E_CLOSED_REFUSE); unlock() };
			ok = 0
		:: else ->
#endif
#ifdef BROKEN_LINK_WITHOUT_BIT
		drain_or_mark(cnt, 1, 0);
#else
		drain_or_mark(cnt, 0, 0);
#endif
		if
		:: take == cnt ->
			d_step {
				EVENT(E_SLOW_TAKE_ALL);
				held[id] = held[id] + acq[id];
				acq[id] = 0;
				take = 0;
				TOOK;
				unlock()
			};
			ok = 1
		:: else ->
			d_step {
				link_waiter(cnt);
				/* lock-protected state: link and unlock in
				 * one step */
				unlock()
			};
			/* sleep: no end label, a waiter never told it was
			 * served is a deadlock (invalid end state) */
			if	/* asleep */
			:: done[id] ->
				/* smp_load_acquire(&w.done) */
				d_step { woken(cnt) }
#if !EXT
				; ok = 1
#endif
			:: canc ->
				/* signal or timeout */
				lock();
				if
				:: !linked[id] ->
					/* served before we got the lock */
					d_step {
						if
						:: done[id] -> EVENT(E_CANCEL_RACE)
						:: else -> EVENT(E_CANCEL_WAIT_DONE)
						fi;
#if EXT
						if
						:: how[id] == HOW_SHUT ->
							EVENT(E_CANCEL_SHUT)
						:: else -> skip
						fi;
#endif
						unlock()
					};
#ifndef BROKEN_NO_DONE_WAIT
					/* wait (uninterruptible) for done */
					done[id];	/* asleep for done */
#endif
					d_step { woken(cnt) }
#if !EXT
					; ok = 1
#endif
				:: else ->
					d_step {
						OUTCOME(id, HOW_CANCEL);
						unlink_self();
						/* give back what we were handed */
						if
						:: acq[id] > 0 -> EVENT(E_CANCEL_HANDBACK)
						:: else -> skip
						fi;
						infl[id] = acq[id];
						acq[id] = 0
					};
					locked_release();
					d_step {
						assert(infl[id] == 0);	/* never refused */
						if
						:: !(word & WAITERS) -> EVENT(E_CANCEL_CLEARS)
						:: else -> skip
						fi;
#if EXT
						how[id] = 0;
#endif
						unlock()
					};
					publish_done();
					ok = 0
				fi
			fi
		fi
#ifdef CLOSE
		fi
#endif
	fi
}

#ifdef ASYNC
/*
 * psem_acquire_async(n): as acquire(), but a waiter that links does not
 * sleep (-EINPROGRESS). Whoever takes it off the queue (a hand-off, a
 * close) calls its callback after the unlock, in publish_done(). The owner
 * then either waits until the callback has returned, or cancels at any
 * moment with psem_cancel_async_sync(): under the lock, if it is still
 * linked (not served), unlink it and give back its partial grant; else
 * wait for the callback to return (synchronize_rcu()). Afterwards aw is
 * the owner's again: exactly one of "cancelled" and "called back" must
 * have happened.
 */
inline acquire_async(cnt)
{
	try_acquire(cnt);
	if
	:: ok -> skip
	:: else ->
		lock();
#ifdef CLOSE
		if
		:: REFUSE_CLOSED ->
			d_step { EVENT(E_CLOSED_REFUSE); unlock() };
			ok = 0
		:: else ->
#endif
		drain_or_mark(cnt, 0, 0);
		if
		:: take == cnt ->
			d_step {
				held[id] = held[id] + acq[id];
				acq[id] = 0;
				take = 0;
				TOOK;
				unlock()
			};
			ok = 1
		:: else ->
			d_step {
				link_waiter(cnt);
				async[id] = 1;
				unlock()
			};
			/* -EINPROGRESS */
			if
			:: cbret[id] -> skip	/* called back, returned */
			:: true ->
				/* psem_cancel_async_sync() */
#ifdef BROKEN_CANCEL_UNLOCKED
				/* reads served before taking the lock */
				stale = !linked[id];
				lock();
				if
				:: stale ->
#else
				lock();
				if
				:: !linked[id] ->
#endif
					/* served: false; the callback has run or
					 * will run: wait until it returns */
					d_step {
						if
						:: !cbret[id] -> EVENT(E_ACANCEL_LOST)
						:: else -> skip
						fi;
						unlock()
					};
					cbret[id]
				:: else ->
					/* still linked: true, fn never runs */
					d_step {
						OUTCOME(id, HOW_CANCEL);
						unlink_self();
						if
						:: acq[id] > 0 -> EVENT(E_ACANCEL_WON)
						:: else -> skip
						fi;
						infl[id] = acq[id];
						acq[id] = 0
					};
					locked_release();
					d_step {
						assert(infl[id] == 0);	/* never refused */
						unlock()
					};
					publish_done()
				fi
			fi;
			/* aw is the caller's again (ok = 0 first: spin
			 * refuses a break into a d_step) */
			ok = 0;
			d_step {
				/* exactly one of cancelled and called back */
				assert(how[id] == HOW_CANCEL && !cbs[id] &&
				       !cbret[id] ||
				       how[id] != HOW_CANCEL && how[id] != 0 &&
				       cbs[id] && cbret[id]);
				how[id] = 0;
				cbs[id] = 0;
				cbret[id] = 0;
				async[id] = 0;
				stale = 0
			}
		fi
#ifdef CLOSE
		fi
#endif
	fi
}
#endif

#ifdef CLOSE
/*
 * psem_close(): under the lock, set CLOSED (a fetch_or on the word), fail
 * every waiter with -ESHUTDOWN (there is no quiesce in the model to
 * spare), and give their partial grants back through the locked path
 * (debt first). The failed waiters are told after the unlock, like served
 * ones: done, or the callback.
 */
inline close_psem()
{
	lock();
	d_step {
		assert(!ISCLOSED(word));	/* closed once: no -EALREADY */
		if
		:: debt > 0 -> EVENT(E_DEBT_CLOSED)
		:: else -> skip
		fi;
		word = word | CLOSEDBIT(word);
		closed = 1;
		i = 0;
		do
		:: i < qlen ->
			w = q[i];
			OUTCOME(w, HOW_SHUT);
			if
			:: acq[w] > 0 -> EVENT(E_CLOSE_PARTIAL)
			:: else -> skip
			fi;
#ifndef BROKEN_CLOSE_NO_GIVEBACK
			/* psem_fail_waiter() returns w->n - w->needed */
			infl[id] = infl[id] + acq[w];
#endif
			acq[w] = 0;
			needed[w] = 0;
			want[w] = 0;
			linked[w] = 0;
			ticket[w] = 0;
			q[i] = 0;
			SERVED = SERVED | (1 << w);
			i++
		:: else -> break
		od;
		if
		:: debt > 0 && infl[id] > 0 -> EVENT(E_CLOSE_DEBT)
		:: else -> skip
		fi;
		qlen = 0;
		i = 0;
		w = 0
	};
	locked_release();
	d_step {
		assert(infl[id] == 0);	/* never refused */
		unlock()
	};
	publish_done()
}

/* psem_reopen(): clear CLOSEDBIT (a fetch_andnot) under the lock. */
inline reopen_psem()
{
	lock();
	d_step {
		assert(ISCLOSED(word));
		word = word & ~CLOSEDBIT(word);
		closed = 0;
		reopens++;
		unlock()
	}
}
#endif

/*
 * reduce(n): under the lock, take what the balance holds; the rest becomes
 * a debt, with WAITERS set in the same exchange. The process then brings
 * the n permits back with a release (capacity restored), so that every
 * waiter can still be served.
 */
inline reduce(cnt)
{
	lock();
#ifdef BROKEN_DEBT_WITHOUT_BIT
	drain_or_mark(cnt, 1, 1);
#else
	drain_or_mark(cnt, 0, 1);
#endif
	d_step {
		if
		:: take < cnt -> EVENT(E_DEBT)
		:: else -> skip
		fi;
		take = 0;
		unlock()
	}
}
