// SPDX-License-Identifier: GPL-2.0
/*
 * psem-explore's search: stateless model checking of each scenario. Every
 * schedule is one forked child that replays a prefix of choices and goes on
 * by the default policy; the parent keeps the tree of choices seen and
 * backtracks depth-first, CHESS-style, over every schedule with at most
 * `bound` preemptions (a switch away from a thread that could have gone
 * on, a timeout fired or an interrupt delivered while it could). Scenarios
 * that ask for it get PCT runs (depth 3) with fixed seeds: after the
 * bounded search if they give a bound too, else instead of it.
 *
 *   psem-explore [-v] [-f] [-b BOUND] [-m MAX] [-p RUNS] [-j JOBS] [GLOB...]
 *   psem-explore -l
 *   psem-explore -r TOKEN
 *
 *   GLOB       scenarios whose name matches (fnmatch); all by default
 *   -b BOUND   preemption bound for every scenario (default 2, or
 *              EXPLORE_BOUND; without either, a scenario's own .bound)
 *   -m MAX     schedules per scenario at most (default 200000; a
 *              scenario's own .max, lower, applies at its own bound)
 *   -p RUNS    that many PCT runs instead, for every scenario
 *   -j JOBS    run that many scenarios at a time, in worker processes;
 *              each scenario's lines are printed together, in order
 *   -f         find mode: each scenario is expected to fail; report the
 *              schedules explored until it did (for mutants, old sources)
 *   -r TOKEN   replay one schedule, printed by a failure, and show it
 *   -v         a line per scenario even when it passes
 *
 * The last line: "explore: N scenarios, M schedules, F failures".
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "explore_int.h"

extern const struct ex_scenario *const __start_ex_scenarios[];
extern const struct ex_scenario *const __stop_ex_scenarios[];

static int opt_bound = 2, opt_find, opt_verbose;
static unsigned long opt_max = 200000;
static unsigned long scen_max;	/* the cap of the scenario running */

/* What the parent keeps of one step: the choices tried there so far. */
struct ex_node {
	uint64_t	en;
	uint64_t	tried;
	int8_t		choice;
	int8_t		prev;
	int8_t		prev_ready;
	int		preempts;	/* before this step */
	uintptr_t	addr;		/* of the operation first chosen */
};

static struct ex_node nodes[EX_MAX_STEPS];

/*
 * The addresses seen so far, each with the threads (and, as thread + 16,
 * the interrupt handlers on them) that touched it. A preemption just
 * before an operation on an address that one thread alone touches is
 * equivalent to the one just after it, which the search tries anyway: the
 * operation commutes with everything another thread does. So the search
 * skips it, exactly once the table has seen every address (it learns them
 * run by run; the nodes nearer the root, where most of the tree is, are
 * backtracked last, with the most complete table).
 */
#define ADDR_SLOTS	(1 << 16)
static struct { uintptr_t addr; uint32_t who; } addrs[ADDR_SLOTS];
static unsigned long pruned;

static uint32_t *addr_who(uintptr_t a, bool add)
{
	unsigned int h = (unsigned int)((a * 0x9E3779B97F4A7C15ULL) >> 48);

	for (;; h = (h + 1) & (ADDR_SLOTS - 1)) {
		if (addrs[h].addr == a)
			return &addrs[h].who;
		if (!addrs[h].addr) {
			if (!add)
				return NULL;
			addrs[h].addr = a;
			return &addrs[h].who;
		}
	}
}

static void learn_addrs(void)
{
	unsigned int i;

	for (i = 0; i < ex_rec->nsteps; i++) {
		const struct ex_step *s = &ex_rec->steps[i];

		if (s->addr && !EX_IS_IRQ(s->choice) && !EX_IS_TIMEOUT(s->choice))
			*addr_who(s->addr, true) |=
				1U << (EX_TID(s->choice) + (s->in_irq ? 16 : 0));
	}
}

/* Step @i's operation touches what only its own thread touches. */
static bool local_op(unsigned int i)
{
	uint32_t *who;

	if (!nodes[i].addr)
		return false;
	who = addr_who(nodes[i].addr, false);
	return who && !(*who & (*who - 1));
}

static bool is_preemption(const struct ex_node *n, int c)
{
	return n->prev_ready && c != EX_RUN(n->prev);
}

/* Runs one schedule in a child; returns 0, or why it failed. */
static int run_child(const struct ex_scenario *sc, bool show)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("psem-explore: fork");
		exit(2);
	}
	if (!pid) {
		if (!show) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 2);
			dup2(fd, 1);
		}
		alarm(20);
		ex_execute(sc);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (!ex_rec->failed) {
		if (WIFSIGNALED(status))
			snprintf(ex_rec->msg, sizeof(ex_rec->msg),
				 "killed by signal %d%s", WTERMSIG(status),
				 WTERMSIG(status) == SIGALRM ? " (a hang)" : "");
		else
			snprintf(ex_rec->msg, sizeof(ex_rec->msg),
				 "exit status %d (a sanitizer report, or abort())",
				 WEXITSTATUS(status));
	}
	return 1;
}

/* The replay token: the scenario, then the choices, runs compressed. */
static void print_token(const char *name, FILE *f)
{
	unsigned int i, j;

	fprintf(f, "%s:", name);
	for (i = 0; i < ex_rec->nsteps; i = j) {
		for (j = i; j < ex_rec->nsteps &&
		     ex_rec->steps[j].choice == ex_rec->steps[i].choice; j++)
			;
		fprintf(f, "%s%d", i ? "." : "", ex_rec->steps[i].choice);
		if (j - i > 1)
			fprintf(f, "x%u", j - i);
	}
}

static int parse_token(const char *tok, char *name, size_t len)
{
	const char *p = strchr(tok, ':');
	unsigned int n = 0;

	if (!p || (size_t)(p - tok) >= len)
		return -1;
	memcpy(name, tok, p - tok);
	name[p - tok] = 0;
	for (p++; *p; ) {
		char *end;
		long c = strtol(p, &end, 10), k = 1;

		if (end == p || c < 0 || c >= EX_CHOICES)
			return -1;
		p = end;
		if (*p == 'x') {
			k = strtol(p + 1, &end, 10);
			p = end;
		}
		while (k-- > 0 && n < EX_MAX_STEPS)
			ex_rec->prefix[n++] = (int8_t)c;
		if (*p == '.')
			p++;
	}
	ex_rec->nprefix = n;
	return 0;
}

/* file:line (function) of each step's pc, through addr2line -i. */
static void symbolize(char (*where)[640], unsigned int n)
{
	char path[1024], cmd[1200], line[512], fn[512] = "";
	unsigned int i, cur = 0;
	int state = 0, have = 0;
	FILE *in, *out;
	ssize_t len;
	char tmp[] = "/tmp/psem-explore.XXXXXX";
	int fd = mkstemp(tmp);

	for (i = 0; i < n; i++)
		snprintf(where[i], 640, "?");
	len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (len < 0 || fd < 0)
		return;
	path[len] = 0;
	out = fdopen(fd, "w");
	for (i = 0; i < n; i++)
		fprintf(out, "0x%lx\n", (unsigned long)(ex_rec->steps[i].pc ?
			ex_rec->steps[i].pc - 1 : 0));
	fclose(out);
	snprintf(cmd, sizeof(cmd), "addr2line -a -f -i -e '%s' < %s", path, tmp);
	in = popen(cmd, "r");
	if (!in)
		goto out;
	/* Per address: "0x..", then (function, file:line) per inline frame. */
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0x", 2)) {
			if (state)
				cur++;
			state = 1;
			have = 0;
			continue;
		}
		if (state == 1) {
			snprintf(fn, sizeof(fn), "%s", line);
			state = 2;
			continue;
		}
		state = 1;
		if (cur >= n || have)
			continue;
		{
			const char *base = strrchr(line, '/');
			bool ours = strstr(line, "/kmod/") ||
				    strstr(line, "/explore/");

			char *disc = strstr(line, " (discriminator");

			if (disc)
				*disc = 0;
			base = base ? base + 1 : line;
			if (ours || !where[cur][1]) {
				snprintf(where[cur], 640, "%s (%s)", base, fn);
				have = ours;
			}
		}
	}
	pclose(in);
out:
	unlink(tmp);
}

static const char *choice_name(const struct ex_scenario *sc, int c, char *buf)
{
	static const char *const fixed[] = { "irq_work", "kworker" };
	int t = EX_TID(c);

	if (t < 2)
		snprintf(buf, 32, "%s", fixed[t]);
	else
		snprintf(buf, 32, "T%d", t);
	return buf;
}

/* The failing schedule as a readable interleaving. */
static void print_trace(const struct ex_scenario *sc)
{
	unsigned int n = ex_rec->nsteps, i;
	char (*where)[640] = calloc(n + 1, sizeof(*where));
	char buf[32];

	symbolize(where, n);
	fprintf(stderr, "explore: %s: the interleaving (thread: what it does next, from where):\n",
		sc->name);
	for (i = 0; i < n; i++) {
		const struct ex_step *s = &ex_rec->steps[i];
		bool sw = i && s->choice != ex_rec->steps[i - 1].choice;

		fprintf(stderr, "  %5u %s%-8s %s%s at %s\n", i,
			sw ? "> " : "  ", choice_name(sc, s->choice, buf),
			EX_IS_IRQ(s->choice) ? "[interrupt] " :
			EX_IS_TIMEOUT(s->choice) ? "[timeout] " : "",
			s->op, where[i]);
	}
	free(where);
}

static void report(const struct ex_scenario *sc, unsigned long schedules)
{
	fprintf(stderr, "explore: %s: FAIL after %lu schedule(s): %s\n",
		sc->name, schedules, ex_rec->msg);
	if (!opt_find || opt_verbose) {
		/* Again, with its output shown (a sanitizer's report). */
		unsigned int n = ex_rec->nsteps, i;

		for (i = 0; i < n; i++)
			ex_rec->prefix[i] = ex_rec->steps[i].choice;
		ex_rec->nprefix = n;
		ex_rec->pct = 0;
		run_child(sc, true);
		print_trace(sc);
	}
	fprintf(stderr, "explore: %s: replay: psem-explore -r '", sc->name);
	print_token(sc->name, stderr);
	fprintf(stderr, "'\n");
}

/* Depth-first over the choices, preemptions bounded; 1 if one failed. */
static int explore_bounded(const struct ex_scenario *sc, int bound,
			   unsigned long *schedules, bool *capped)
{
	unsigned int depth = 0, i;

	ex_rec->pct = 0;
	ex_rec->nprefix = 0;
	for (;;) {
		int c = -1;

		if (run_child(sc, false)) {
			++*schedules;
			return 1;
		}
		++*schedules;
		/* The steps past the prefix are new nodes. */
		for (i = ex_rec->nprefix; i < ex_rec->nsteps; i++) {
			const struct ex_step *s = &ex_rec->steps[i];
			struct ex_node *nd = &nodes[i];

			nd->en = s->en;
			nd->choice = s->choice;
			nd->tried = 1ULL << s->choice;
			nd->prev = s->prev;
			nd->prev_ready = s->prev_ready;
			nd->addr = s->choice == EX_RUN(s->prev) ? s->addr : 0;
			nd->preempts = i ? nodes[i - 1].preempts +
				is_preemption(&nodes[i - 1], nodes[i - 1].choice) : 0;
		}
		depth = ex_rec->nsteps;
		learn_addrs();
		/* Backtrack to the deepest node with a choice left. */
		while (depth > 0) {
			struct ex_node *nd = &nodes[depth - 1];
			uint64_t left = nd->en & ~nd->tried;

			for (c = 0; left && c < EX_CHOICES; c++) {
				if (!(left & (1ULL << c)))
					continue;
				if (is_preemption(nd, c) && !EX_IS_IRQ(c) &&
				    local_op(depth - 1)) {
					nd->tried |= 1ULL << c;
					pruned++;
					continue;
				}
				if (bound < 0 ||
				    nd->preempts + is_preemption(nd, c) <= bound)
					break;
				nd->tried |= 1ULL << c;	/* over the bound */
			}
			if (c < EX_CHOICES && (nd->en & ~nd->tried & (1ULL << c)))
				break;
			depth--;
		}
		if (!depth)
			return 0;
		if (*schedules >= scen_max) {
			*capped = true;
			return 0;
		}
		nodes[depth - 1].tried |= 1ULL << c;
		nodes[depth - 1].choice = c;
		for (i = 0; i < depth; i++)
			ex_rec->prefix[i] = nodes[i].choice;
		ex_rec->nprefix = depth;
	}
}

static int explore_pct(const struct ex_scenario *sc, int runs,
		       unsigned long *schedules)
{
	int r;

	/* The default schedule first, for PCT's estimate of its length. */
	ex_rec->pct = 0;
	ex_rec->nprefix = 0;
	++*schedules;
	if (run_child(sc, false))
		return 1;
	ex_rec->pct_steps = ex_rec->nsteps + ex_rec->nsteps / 2;
	for (r = 0; r < runs; r++) {
		ex_rec->pct = 1;
		ex_rec->nprefix = 0;
		ex_rec->seed = 1000003ULL * (r + 1);
		++*schedules;
		if (run_child(sc, false))
			return 1;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct ex_scenario *find(const char *name)
{
	const struct ex_scenario *const *p;

	for (p = __start_ex_scenarios; p < __stop_ex_scenarios; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}

static int replay(const char *tok)
{
	const struct ex_scenario *sc;
	char name[128];

	if (parse_token(tok, name, sizeof(name)) || !(sc = find(name))) {
		fprintf(stderr, "psem-explore: bad token, or no scenario %s\n",
			name);
		return 2;
	}
	ex_rec->pct = 0;
	if (!run_child(sc, true)) {
		printf("explore: %s: replayed %u steps: held\n", name,
		       ex_rec->nsteps);
		print_trace(sc);
		return 0;
	}
	fprintf(stderr, "explore: %s: replay FAILED: %s\n", name, ex_rec->msg);
	print_trace(sc);
	return 1;
}

/* What one scenario's exploration came to. */
struct ex_result {
	unsigned long	schedules;
	int		bound;
	int		bad;
	int		capped;
	double		secs;
};

static int opt_bound_given, opt_pct;

/*
 * Explores @sc and prints its lines; the figures go to @res. A scenario
 * is searched at its bound (its own, or the default), then, if it asks
 * for them, given PCT runs as well; one with PCT runs and no bound gets
 * those alone. -b or EXPLORE_BOUND: every scenario at that bound,
 * uncapped, and no PCT; -p: that many PCT runs alone, for every one.
 */
static void run_scenario(const struct ex_scenario *sc, struct ex_result *res)
{
	const char *env = getenv("EXPLORE_BOUND");
	int bound = sc->bound ? sc->bound : opt_bound, pct = sc->pct;
	bool bounded = sc->bound || !sc->pct, capped = false, in_pct = false;
	unsigned long n = 0, max = opt_max;
	double t = now();
	char how[64];
	int bad = 0;

	if (opt_pct) {
		bounded = false;
		pct = opt_pct;
	} else if (opt_bound_given || (env && *env)) {
		bounded = true;
		bound = opt_bound;
		pct = 0;
	} else if (sc->max && sc->max < max) {
		max = sc->max;
	}
	memset(addrs, 0, sizeof(addrs));
	scen_max = max;
	if (bounded)
		bad = explore_bounded(sc, bound, &n, &capped);
	if (!bad && pct) {
		in_pct = true;
		bad = explore_pct(sc, pct, &n);
	}
	res->schedules = n;
	res->bound = bounded ? bound : 0;
	res->bad = bad;
	res->capped = capped;
	res->secs = now() - t;
	if (!bounded)
		snprintf(how, sizeof(how), "%d PCT runs, depth %d", pct,
			 EX_PCT_DEPTH);
	else if (pct)
		snprintf(how, sizeof(how), "bound %d, then %d PCT runs", bound,
			 pct);
	else
		snprintf(how, sizeof(how), "bound %d", bound);
	if (bad) {
		report(sc, n);
		if (opt_find)
			printf("explore: %s: found after %lu schedule(s) (%s%s)\n",
			       sc->name, n, how,
			       in_pct && bounded ? ": in a PCT run" : "");
		return;
	}
	if (opt_find) {
		printf("explore: %s: NOT found in %lu schedule(s)\n", sc->name, n);
		return;
	}
	if (capped)
		printf("explore: %s: %lu schedules, capped (bound %d not exhausted), %.1f s\n",
		       sc->name, n, bound, res->secs);
	else if (opt_verbose)
		printf("explore: %s: %lu schedules (%s%s), %.1f s\n",
		       sc->name, n, bounded ? "all, " : "", how, res->secs);
}

/*
 * -j JOBS: JOBS worker processes take the scenarios from a shared counter,
 * each scenario's output going to a file of its own, which the parent
 * prints in the scenarios' order once all are done.
 */
static void run_parallel(const struct ex_scenario **sel, int nsel,
			 struct ex_result *res, int jobs)
{
	int *next = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	FILE **out = calloc(nsel, sizeof(*out));
	char buf[4096];
	int i, j;

	if (next == MAP_FAILED || !out) {
		perror("psem-explore");
		exit(2);
	}
	*next = 0;
	for (i = 0; i < nsel; i++) {
		out[i] = tmpfile();
		if (!out[i]) {
			perror("psem-explore: tmpfile");
			exit(2);
		}
	}
	fflush(stdout);
	fflush(stderr);
	for (j = 0; j < jobs; j++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("psem-explore: fork");
			exit(2);
		}
		if (pid)
			continue;
		/* A worker: a record of its own for its children. */
		ex_rec = mmap(NULL, sizeof(*ex_rec), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (ex_rec == MAP_FAILED)
			_exit(2);
		while ((i = __atomic_fetch_add(next, 1, __ATOMIC_RELAXED)) < nsel) {
			dup2(fileno(out[i]), 1);
			dup2(fileno(out[i]), 2);
			run_scenario(sel[i], &res[i]);
			fflush(stdout);
			fflush(stderr);
		}
		_exit(0);
	}
	for (j = 0; j < jobs; j++) {
		int status;

		while (wait(&status) < 0 && errno == EINTR)
			;
	}
	for (i = 0; i < nsel; i++) {
		size_t len;

		rewind(out[i]);
		while ((len = fread(buf, 1, sizeof(buf), out[i])) > 0)
			fwrite(buf, 1, len, stdout);
		fclose(out[i]);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const struct ex_scenario *const *p;
	const struct ex_scenario **sel;
	struct ex_result *res;
	unsigned long total = 0;
	int opt, nsc = 0, nfail = 0, ncapped = 0, jobs = 1, i;
	const char *env = getenv("EXPLORE_BOUND");
	double t0 = now();

	ex_rec = mmap(NULL, sizeof(*ex_rec), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ex_rec == MAP_FAILED)
		return 2;
	ex_init();
	if (env && *env)
		opt_bound = atoi(env);
	while ((opt = getopt(argc, argv, "lvfb:m:p:r:j:")) != -1) {
		switch (opt) {
		case 'l':
			for (p = __start_ex_scenarios; p < __stop_ex_scenarios; p++)
				printf("%-34s %s\n", (*p)->name, (*p)->doc);
			return 0;
		case 'v':
			opt_verbose = 1;
			break;
		case 'f':
			opt_find = 1;
			break;
		case 'b':
			opt_bound = atoi(optarg);
			opt_bound_given = 1;
			break;
		case 'm':
			opt_max = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			jobs = atoi(optarg);
			break;
		case 'p':
			opt_pct = atoi(optarg);
			break;
		case 'r':
			return replay(optarg);
		default:
			fprintf(stderr, "usage: psem-explore [-lvf] [-b BOUND] [-m MAX] [-p RUNS] [-j JOBS] [-r TOKEN] [GLOB...]\n");
			return 2;
		}
	}
	/* The scenarios that match, in the order the linker gave them. */
	sel = calloc(__stop_ex_scenarios - __start_ex_scenarios + 1,
		     sizeof(*sel));
	for (p = __start_ex_scenarios; p < __stop_ex_scenarios; p++) {
		bool match = optind >= argc;

		for (i = optind; i < argc && !match; i++)
			match = !fnmatch(argv[i], (*p)->name, 0);
		if (match)
			sel[nsc++] = *p;
	}
	if (!nsc) {
		fprintf(stderr, "psem-explore: no scenario matches\n");
		return 2;
	}
	res = mmap(NULL, nsc * sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		return 2;
	memset(res, 0, nsc * sizeof(*res));
	if (jobs > 1 && nsc > 1)
		run_parallel(sel, nsc, res, jobs < nsc ? jobs : nsc);
	else
		for (i = 0; i < nsc; i++)
			run_scenario(sel[i], &res[i]);
	for (i = 0; i < nsc; i++) {
		total += res[i].schedules;
		nfail += res[i].bad;
		ncapped += res[i].capped;
	}
	if (opt_find)
		printf("explore: %d scenarios, %lu schedules, %d found, %d not found (%.0f s)\n",
		       nsc, total, nfail, nsc - nfail, now() - t0);
	else
	{
		if (ncapped)
			printf("explore: %d scenario(s) capped before their bound was exhausted\n",
			       ncapped);
		printf("explore: %d scenarios, %lu schedules, %d failures (%.0f s)\n",
		       nsc, total, nfail, now() - t0);
	}
	if (opt_find)
		return nfail == nsc ? 0 : 1;
	return nfail ? 1 : 0;
}
