/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psem_release.pml - the release side of the model of psem: the queue
 * lock, the hand-off to waiters and the publication of done (or the
 * callback), the locked path, the fast release by each rule, and
 * release_all_held.
 *
 * Part of psem.pml, which includes it (spin runs the C preprocessor): see
 * psem.pml for the model, its configuration macros and the properties.
 */

/*
 * CONTENDED is always clear when a task acquires the queue lock (its bit,
 * with WAITERS set, is DCLOSED).
 */
inline lock()
{
	atomic {
		lk == 0 -> lk = 1;
		assert(!(word & CONTENDED) || (word & WAITERS))
	}
}

inline unlock()
{
	lk = 0
}

/*
 * WAITERS is set: pay the debt, then hand rem permits (in flight, held by
 * releaser `id`) to waiters in FIFO order, unlinking the served ones onto
 * the private list `served`. Lock-protected state only: one step.
 */
inline pay_and_hand_off()
{
	k = MIN(rem, debt);
	if
	:: k > 0 && qlen > 0 -> EVENT(E_DEBT_FIRST)
	:: else -> skip
	fi;
	/* the debt, in the word (I2): its last permit takes DEBTBIT with it */
	if
	:: k > 0 && k == debt -> word = word - k * ONE - DEBTBIT(word)
	:: else -> word = word - k * ONE
	fi;
	infl[id] = infl[id] - k;
	rem = rem - k;
	do
	:: rem > 0 && qlen > 0 ->
		assert(debt == 0);	/* debt before any waiter */
		w = q[0];
		k = MIN(rem, needed[w]);
		needed[w] = needed[w] - k;
		acq[w] = acq[w] + k;
		infl[id] = infl[id] - k;
		rem = rem - k;
		if
		:: needed[w] > 0 -> EVENT(E_PARTIAL); ASYNC_PARTIAL(w)
		:: else -> skip
		fi;
		if
		:: needed[w] == 0 ->
			/* FIFO: served in link order */
			assert(ticket[w] == 1);
			OUTCOME(w, HOW_SERVED);
			i = 0;
			do
			:: i + 1 < qlen -> q[i] = q[i + 1]; i++
			:: else -> break
			od;
			qlen--;
			q[qlen] = 0;
			linked[w] = 0;
			want[w] = 0;
			untick(w);
			SERVED = SERVED | (1 << w)
		:: else -> skip
		fi
	:: else -> break
	od;
	w = 0; k = 0; i = 0
}

/* Renumber the link ranks when waiter x leaves the queue (in a d_step). */
inline untick(x)
{
	j = 0;
	do
	:: j < 3 ->
		if
		:: ticket[j] > ticket[x] -> ticket[j]--
		:: else -> skip
		fi;
		j++
	:: else -> break
	od;
	ticket[x] = 0;
	j = 0
}

/* Refuse with -EOVERFLOW: nothing added, permits stay with the caller. */
inline refuse()
{
	d_step {
		assert(rem == infl[id]);
		held[id] = held[id] + infl[id];
		infl[id] = 0;
#ifdef OVERFLOW
		refusals++;
#else
		assert(OVERFLOW_CONFIG);	/* MAX - INIT > NMAX */
#endif
		EVENT(E_REFUSE);
		rem = 0;
		if
		:: mine ->
			/* atomic and-not: a refusal after a trip */
			EVENT(E_REFUSE_TRIPPED);
			word = word & ~CONTENDED;
			mine = 0
		:: else -> skip
		fi
	}
}

/*
 * The locked path. Caller holds the lock and has put its permits in
 * infl[id]; rem may be 0 (a cancel with nothing to give back).
 */
inline locked_release()
{
	d_step {
		rem = infl[id];
		cur = word		/* relaxed read */
	};
	if
	:: cur & WAITERS ->
		/*
		 * I2: the word holds the debt and only lock holders write
		 * it, and the queue is lock-protected: the pay, the hand-off
		 * and the final fetch_add are one step.
		 */
		d_step {
#ifdef BROKEN_RELEASE_WITH_WAITER
			word = word + rem * ONE;
			infl[id] = infl[id] - rem;
			rem = 0;
#endif
			pay_and_hand_off();
			if
#ifdef BROKEN_CLEAR_WITH_WAITER
			:: debt == 0 ->
#else
			:: qlen == 0 && debt == 0 ->
#endif
				/* fetch_add_release(rest * ONE - WAITERS) */
				if
				:: rem > 0 -> EVENT(E_CLEAR_ADD); LANDED
				:: else -> skip
				fi;
				word = word + rem * ONE - WAITERS;
				infl[id] = infl[id] - rem;
				rem = 0
			:: else ->
				/* all of it went to the debt or to waiters */
				assert(rem == 0)
			fi
		}
	:: else ->
		/* nobody waits: a cmpxchg loop, overflow refused */
		do
		:: rem == 0 -> break
		:: rem > 0 && rem > MAX - BAL(cur) ->
			refuse();
			break
		:: rem > 0 && rem <= MAX - BAL(cur) ->
			d_step {
				if
				:: word == cur ->
					/* the winning exchange clears
					 * CONTENDED */
					word = (cur & ~CONTENDED) + rem * ONE;
					EVENT(E_LOCKED_ADD);
#ifdef CLOSE
					if
					:: ISCLOSED(cur) -> EVENT(E_CLOSED_RELEASE)
					:: else -> skip
					fi;
#endif
					infl[id] = 0;
					LANDED;
					rem = 0;
					mine = 0;
					ok = 1
				:: else ->
					if
					:: BAL(cur) == 0 && BAL(word) > 0 ->
						EVENT(E_TRIP_AT_ZERO)
					:: else -> skip
					fi;
					/* cmpxchg returns the current value */
					cur = word;
					ok = 0
				fi
			};
			if
			:: ok -> ok = 0; break
			:: !ok && !mine && FLAG ->
				/* lost a race: ask releases to queue */
				d_step {
					word = word | CONTENDED;
					EVENT(E_FLAG_TRIP)
				};
				mine = 1
			:: else -> skip
			fi
		od
	fi;
	cur = 0
}

#ifndef ASYNC
/* After the unlock: publish done for every waiter this release served. */
inline publish_done()
{
	do
	:: SERVED != 0 ->
		/* read the task, smp_store_release(&w->done, true) */
		d_step {
			i = 0;
			do
			:: !(SERVED & (1 << i)) -> i++
			:: else -> break
			od;
			assert(live[i]);	/* the waiter's stack is live */
			done[i] = 1;
			SERVED = SERVED & ~(1 << i);
			i = 0
		}
	:: else -> break
	od
}
#else
/*
 * After the unlock [psem_wake_served()]: for each waiter this release took
 * off the queue, publish done (a sleeping waiter) or call the callback (an
 * asynchronous one). The callback owns aw from the call on; with a grant
 * it releases the permits into the same psem at once (taking the queue
 * lock afresh: it runs after the unlock), and that release's own wake list
 * is walked, one level deeper, before the callback returns.
 */
inline publish_done()
{
	do
	:: SERVED != 0 ->
		d_step {
			i = 0;
			do
			:: !(SERVED & (1 << i)) -> i++
			:: else -> break
			od;
			SERVED = SERVED & ~(1 << i);
			assert(live[i]);	/* the waiter is still psem's */
			if
			:: !async[i] ->
				/* smp_store_release(&w->done, true) */
				done[i] = 1
			:: else ->
				/* aw->fn(aw, w->result): exactly once, never
				 * for a cancelled waiter */
				assert(!cbs[i] && (how[i] == HOW_SERVED ||
						   how[i] == HOW_SHUT));
				cbs[i] = 1;
				live[i] = 0;	/* the callback owns aw */
				if
				:: how[i] == HOW_SHUT -> EVENT(E_CB_SHUT)
				:: else -> skip
				fi;
				/* with a grant the callback holds the permits */
				cbn = acq[i];
				held[id] = held[id] + cbn;
				acq[i] = 0;
				if
				:: d > 0 -> EVENT(E_CB_NESTED)
				:: else -> skip
				fi;
				assert(d < 2);
				d++;
				cbof[d] = i
			fi;
			i = 0
		};
		if
		:: cbn > 0 ->
			/* the callback releases into the same psem */
			release_in_cb(cbn);
			cbn = 0
		:: else -> skip
		fi
	:: SERVED == 0 && d > 0 ->
		/* the callback returns; rcu_read_unlock() */
		d_step {
			cbret[cbof[d]] = 1;
			cbof[d] = 0;
			d--
		}
	:: else -> break
	od
}
#endif

inline slow_release()
{
	lock();
	locked_release();
#ifdef BROKEN_CB_UNDER_LOCK
	publish_done();
	unlock()
#else
	unlock();
	publish_done()
#endif
}

/* The fast exchange is allowed for word c by rule r. */
#define FAST_OK(c, n, r) \
	((r == RULE_WAITERS_BIT && ((c) & FLAGS) == 0 || \
	  r == RULE_POSITIVE_BALANCE && BAL(c) > 0 && !((c) & CONTENDED)) && \
	 (n) <= MAX - BAL(c) && !((c) & BLOCKED))

/*
 * Give up cnt held permits and pick the release rule (the switches are
 * read once per call). RULE_ANY: any of the three, as if flipped meanwhile.
 */
inline begin_release(cnt)
{
#if RULE == RULE_ANY
	if
	:: r = RULE_ALWAYS_LOCKED
	:: r = RULE_POSITIVE_BALANCE
	:: r = RULE_WAITERS_BIT
	fi;
#endif
	d_step {
#if RULE != RULE_ANY
		r = RULE;
#endif
		held[id] = held[id] - cnt;
		infl[id] = cnt;
		cur = word		/* relaxed read (release) */
	}
}

/*
 * The fast part of release(n): a strong compare-exchange if the rule
 * allows it (a closed word never does: it is negative in C), retried
 * under the waiters-bit rule while the word it returns still passes the
 * rule; ok = 1 if it landed.
 */
inline release_fast(cnt)
{
	begin_release(cnt);
	do
	:: FAST_OK(cur, cnt, r) ->
		d_step {
			if
			:: word == cur ->
				if
				:: BAL(cur) == 0 -> EVENT(E_FAST_AT_ZERO)
				:: else -> skip
				fi;
				word = cur + cnt * ONE;
				infl[id] = 0;
				LANDED;
				ok = 1
			:: else ->
				EVENT(E_FAST_CAS_FAIL);
				cur = word;	/* what cmpxchg returns */
				ok = 0
			fi
		};
		if
		:: ok -> break
		/*
		 * The waiters-bit rule retries on the word the exchange
		 * returned while the rule allows it (psem_release_retry(), and
		 * psem_release_credit() against the limit);
		 * the positive-balance rule, the seed's, goes to the lock.
		 */
		:: !ok && r == RULE_WAITERS_BIT -> skip
#ifdef BROKEN_FAST_RETRY
		:: else -> skip		/* the seed's rule retries too */
#else
		:: else -> break	/* no retry: to the lock */
#endif
		fi
	:: else ->
		d_step {
			if
			:: r != RULE_ALWAYS_LOCKED && (cur & FLAGS) == CONTENDED ->
				EVENT(E_FLAG_HONOURED)
			:: else -> skip
			fi;
			ok = 0
		};
		break
	od;
	r = 0;
	cur = 0
}

/*
 * release(n): the lock-free exchange if the rule allows it, else (or if
 * the rule sends it there after a lost exchange) the locked path.
 */
inline release(cnt)
{
	release_fast(cnt);
	if
	:: ok -> ok = 0
	:: else -> slow_release()
	fi
}

#ifdef ASYNC
/*
 * The release inside a callback: the same, but its wake list is the next
 * level of publish_done()'s walk (in C psem_wake_served() nests).
 */
inline release_in_cb(cnt)
{
	release_fast(cnt);
	if
	:: ok -> ok = 0
	:: else ->
		lock();		/* not held: the callback runs unlocked */
		EVENT(E_CB_GRANT);
		locked_release();
		unlock()
	fi
}
#endif

/* release_all_held(n): one cmpxchg 0 -> n * ONE, else the locked path. */
inline release_all_held(cnt)
{
	begin_release(cnt);
	d_step {
		if
		:: r == RULE_WAITERS_BIT && word == 0 ->
			word = cnt * ONE;
			EVENT(E_ALL_HELD_FAST);
			infl[id] = 0;
			LANDED;
			ok = 1
		:: else -> ok = 0
		fi;
		r = 0;
		cur = 0
	};
	if
	:: ok -> ok = 0
	:: else -> slow_release()
	fi
}
