# SPDX-License-Identifier: GPL-2.0
# psem: build the modules against a kernel tree, and run the project's checks.
# `make help` lists the targets and variables, one line each;
# Documentation/testing.rst has the tests, and a table of every variable the
# scripts read.
#
# The kbuild rules themselves are in Kbuild, kmod/Kbuild, kunit/Kbuild and
# examples/Kbuild; the test kernels' config fragments are in configs/.
# Nothing here loads a module into the running kernel. Variables given on
# the command line (DURATION=600, QUICK=1, SCENARIO=..., XFS=1) reach the
# scripts' environment.

KVER	?= $(shell uname -r)
KDIR	?= /lib/modules/$(KVER)/build
PWD	:= $(CURDIR)

# Script-backed targets: `make X` runs scripts/X.sh.
SCRIPTS	:= demo lint torture bench bench-native bench-xfs series

# `make check` / `make kunit`: stages, test kernels and KUnit suites by name
# (scripts/check.sh --only, --kernels, --suites), from the command line
# only: a variable of the same name in the environment does not count.
ONLY	:=
KERNELS	:=
KERNEL	:=
SUITES	:=
select_args = $(if $(strip $(KERNELS) $(KERNEL)),--kernels '$(strip $(KERNELS) $(KERNEL))') \
	$(if $(SUITES),--suites '$(SUITES)')

# The version DKMS knows psem by, from dkms.conf.
PSEM_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' "$(CURDIR)/dkms.conf")
DKMS_SRC := /usr/src/psem-$(PSEM_VERSION)

.PHONY: all modules examples clean kdir dkms-install dkms-uninstall explore \
	check kunit series-check bench-semaphore help $(SCRIPTS)

all: modules examples

kdir:
	@test -f "$(KDIR)/Makefile" || { \
	  echo "psem: no kernel headers for $(KVER) at $(KDIR):" >&2; \
	  echo "psem: install linux-headers-$(KVER), or set KDIR=/path/to/a/configured/kernel/build" >&2; \
	  echo "psem: (scripts/stock-kernel.sh prints Debian's; scripts/build-kernel.sh builds a test kernel)" >&2; \
	  exit 1; }

modules: kdir
	$(MAKE) -C "$(KDIR)" M="$(PWD)" modules

# kbuild reruns examples/'s modpost when the example changes, not when
# psem's Module.symvers does: drop the example's when psem's is newer, or a
# kernel with CONFIG_MODVERSIONS refuses it ("disagrees about version").
examples: modules
	@if [ examples/Module.symvers -ot Module.symvers ]; then rm -f examples/Module.symvers; fi
	$(MAKE) -C "$(KDIR)" M="$(PWD)/examples" \
		KBUILD_EXTRA_SYMBOLS="$(PWD)/Module.symvers" PSEM_DIR="$(PWD)" modules

clean:
	@if [ -f "$(KDIR)/Makefile" ]; then \
	  $(MAKE) -C "$(KDIR)" M="$(PWD)/examples" clean; \
	  $(MAKE) -C "$(KDIR)" M="$(PWD)" clean; \
	fi
	@# Also works without a kernel tree, and catches kunit/ products that a
	@# kernel without KUnit does not know it should clean.
	find . -path ./.git -prune -o -type f \( -name '*.ko' -o -name '*.o' \
	  -o -name '*.mod' -o -name '*.mod.c' -o -name '*.cmd' -o -name '*.a' \
	  -o -name 'modules.order' -o -name 'Module.symvers' -o -name '*.dwo' \
	  -o -name '*.ko.unsigned' \) -print0 | xargs -0r rm -f

dkms-install:
	@test "$$(id -u)" = 0 || { echo "psem: make dkms-install needs root" >&2; exit 1; }
	@command -v dkms >/dev/null || { echo "psem: dkms is not installed (Debian: apt-get install dkms)" >&2; exit 1; }
	-dkms remove psem/$(PSEM_VERSION) --all >/dev/null 2>&1
	rm -rf "$(DKMS_SRC)" && mkdir -p "$(DKMS_SRC)"
	rsync -a --exclude=/.git --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude=Module.symvers \
		--exclude=modules.order --exclude=/bench/results ./ "$(DKMS_SRC)/"
	dkms add psem/$(PSEM_VERSION)
	dkms build psem/$(PSEM_VERSION) -k "$(KVER)"
	dkms install psem/$(PSEM_VERSION) -k "$(KVER)"
	@echo "psem: installed psem $(PSEM_VERSION) for $(KVER) (not loaded: modprobe psem)."
	@echo "psem: a consumer module builds with ccflags-y += -I$(DKMS_SRC)/kmod and"
	@echo "psem:   KBUILD_EXTRA_SYMBOLS=/var/lib/dkms/psem/$(PSEM_VERSION)/$(KVER)/$$(uname -m)/Module.symvers"

dkms-uninstall:
	@test "$$(id -u)" = 0 || { echo "psem: make dkms-uninstall needs root" >&2; exit 1; }
	-dkms remove psem/$(PSEM_VERSION) --all
	rm -rf "$(DKMS_SRC)"

# SCENARIO and EXPLORE_BOUND, given on the command line, reach its environment.
explore:
	bash scripts/check-explore.sh

check:
	bash scripts/check.sh $(if $(ONLY),--only '$(ONLY)') $(select_args)

kunit:
	bash scripts/check.sh --only kunit $(select_args)

# Not a stage of make check (yet): its time is the lead's to budget.
series-check:
	bash scripts/check-series.sh

bench-semaphore:
	bash scripts/check-semaphore.sh --bench

help:
	@echo 'targets:'
	@echo '  all (default)   psem.ko, the KUnit modules (kernels with KUnit) and the example consumer'
	@echo '  modules | examples | clean'
	@echo '  check           every test stage (scripts/check.sh); what CI runs'
	@echo '  kunit           KUnit only: build, boot and run the suites on the test kernels in QEMU'
	@echo '  lint            checkpatch, sparse, W=1, kernel-doc, shellcheck, the variable table'
	@echo '  torture         the torture module on the debug and KCSAN test kernels'
	@echo '  explore         the interleaving explorer and its mutants (userspace)'
	@echo '  bench | bench-native | bench-xfs   the benchmarks (Documentation/benchmarks.rst)'
	@echo '  demo            boot a Debian stock kernel in QEMU and show psem working'
	@echo '  series          the patch series against Linux 7.3.4, generated into ./series (SERIES_OUT)'
	@echo '  series-check    apply it to 7.3.4: checkpatch, W=1 build at every patch, kunit.py (UML, QEMU), locktorture'
	@echo '  bench-semaphore struct semaphore on psem'"'"'s word (the RFC patch) against 7.3.4: icount, XFS'
	@echo '  dkms-install | dkms-uninstall      (root) psem through DKMS for KVER'
	@echo 'variables:'
	@echo '  KVER=<uname -r>, KDIR=DIR   the kernel to build against (default the running one)'
	@echo '  ONLY=STAGE,...   check: only these of $(shell sed -n 's/^all_stages="\(.*\)"$$/\1/p' scripts/check.sh)'
	@echo '  KERNELS=K,...    check, kunit: only these test kernels (KERNEL=K for one) of $(shell sed -n 's/^all_kernels="\(.*\)"$$/\1/p' scripts/check.sh)'
	@echo "  SUITES='GLOB'    check, kunit: KUnit suites and tests by glob, 'suite*' or 'suite.test*'"
	@echo '  DURATION=S       torture: seconds (default 60)'
	@echo '  QUICK=1          bench, bench-native: the short matrix'
	@echo "  SCENARIO='GLOB'  explore: those scenarios only; EXPLORE_BOUND=N: at bound N"
	@echo '  XFS=1            demo: also XFS with its buffer lock on psem'
	@echo 'the rest, PSEM_* in the environment: Documentation/testing.rst, "Variables"'

$(SCRIPTS):
	@test -f scripts/$@.sh || \
	  { echo "psem: 'make $@' is not implemented yet (no scripts/$@.sh)" >&2; exit 1; }
	bash scripts/$@.sh
