# SPDX-License-Identifier: GPL-2.0
# psem: build the modules against a kernel tree, and run the project's checks.
#
#   make [KDIR=/path/to/kernel/build]   psem.ko (+ KUnit modules) and the example
#   make modules | examples | clean
#   make check    lint, the spin model, the litmus tests, KUnit on the
#                 debug-6.1, rt-6.12, debug-7.3 and kcsan-7.3 test kernels in
#                 QEMU, torture, load/use/unload on Debian's six stock
#                 kernels, a DKMS build, XFS on psem, the native smoke
#                 round and the userspace TSan/ASan harness
#   make demo [KVER=6.12|6.12-rt|6.1|6.1-rt|7.3|7.3-rt|<uname -r>] [XFS=1]
#                 boot a Debian stock kernel in QEMU (default the newest
#                 generic one) and show psem working; XFS=1 also runs XFS
#                 with its buffer lock on psem (stress-ng, xfs_repair -n)
#   make dkms-install [KVER=...]   (root) install psem through DKMS for KVER
#                 (default the running kernel): the source and public headers
#                 in /usr/src/psem-<version>, psem.ko in the kernel's
#                 updates/dkms/, Module.symvers in the DKMS tree; rebuilt on
#                 kernel upgrades. Loads nothing. `make dkms-uninstall` undoes.
#   make lint     checkpatch, sparse, W=1 and kernel-doc
#   make torture | bench   scripts/torture.sh, scripts/bench.sh (variables
#                 given on the command line, e.g. DURATION=600 or QUICK=1,
#                 reach the scripts' environment)
#   make explore [SCENARIO=GLOB] [EXPLORE_BOUND=N]
#                 scripts/check-explore.sh: the interleaving explorer's
#                 scenarios (those matching GLOB; EXPLORE_BOUND=3 deeper),
#                 and, when no SCENARIO is given, its mutants
#
# The kbuild rules themselves are in Kbuild, kmod/Kbuild, kunit/Kbuild and
# examples/Kbuild. Nothing here loads a module into the running kernel.

KVER	?= $(shell uname -r)
KDIR	?= /lib/modules/$(KVER)/build
PWD	:= $(CURDIR)

# Script-backed targets: `make X` runs scripts/X.sh.
SCRIPTS	:= check demo lint torture bench bench-native bench-xfs

# The version DKMS knows psem by, from dkms.conf.
PSEM_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' "$(CURDIR)/dkms.conf")
DKMS_SRC := /usr/src/psem-$(PSEM_VERSION)

.PHONY: all modules examples clean kdir dkms-install dkms-uninstall explore \
	$(SCRIPTS)

all: modules examples

kdir:
	@test -f "$(KDIR)/Makefile" || { \
	  echo "psem: no kernel headers for $(KVER) at $(KDIR):" >&2; \
	  echo "psem: install linux-headers-$(KVER), or set KDIR=/path/to/a/configured/kernel/build" >&2; \
	  echo "psem: (scripts/stock-kernel.sh prints Debian's; scripts/build-kernel.sh builds a test kernel)" >&2; \
	  exit 1; }

modules: kdir
	$(MAKE) -C "$(KDIR)" M="$(PWD)" modules

examples: modules
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

$(SCRIPTS):
	@test -f scripts/$@.sh || \
	  { echo "psem: 'make $@' is not implemented yet (no scripts/$@.sh)" >&2; exit 1; }
	bash scripts/$@.sh
