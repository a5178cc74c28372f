# SPDX-License-Identifier: GPL-2.0
# psem: build the modules against a kernel tree, and run the project's checks.
#
#   make [KDIR=/path/to/kernel/build]   psem.ko (+ KUnit modules) and the example
#   make modules | examples | clean
#   make check    lint, then KUnit on the debug and KCSAN test kernels in QEMU,
#                 then load/unload on Debian's stock kernel in QEMU
#   make demo     boot Debian's stock kernel in QEMU and show psem working
#   make lint     checkpatch, sparse, W=1 and kernel-doc
#   make torture | bench   scripts/torture.sh, scripts/bench.sh (variables
#                 given on the command line, e.g. DURATION=600 or QUICK=1,
#                 reach the scripts' environment)
#
# The kbuild rules themselves are in Kbuild, kmod/Kbuild, kunit/Kbuild and
# examples/Kbuild. Nothing here loads a module into the running kernel.

KVER	?= $(shell uname -r)
KDIR	?= /lib/modules/$(KVER)/build
PWD	:= $(CURDIR)

# Script-backed targets: `make X` runs scripts/X.sh.
SCRIPTS	:= check demo lint torture bench

.PHONY: all modules examples clean kdir $(SCRIPTS)

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

$(SCRIPTS):
	@test -f scripts/$@.sh || \
	  { echo "psem: 'make $@' is not implemented yet (no scripts/$@.sh)" >&2; exit 1; }
	bash scripts/$@.sh
