# SPDX-License-Identifier: GPL-2.0
# What the userspace builds (Makefile, native/Makefile) take of psem.ko:
# every object of kmod/Kbuild in $(KSRC), but those that need debugfs or
# module init. The switches (psem_switch.c) are built as they are.

KEXCL	:= psem_debugfs psem_main psem_view
KOBJS	:= $(filter-out $(KEXCL),$(patsubst %.o,%,$(shell \
	   sed -n 's/^psem-y[[:space:]]*[+:]*=[[:space:]]*//p' $(KSRC)/Kbuild)))
ifeq ($(filter psem_core,$(KOBJS)),)
$(error no psem_core.o among the psem-y objects of $(KSRC)/Kbuild)
endif
