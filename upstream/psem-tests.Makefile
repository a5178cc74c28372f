# SPDX-License-Identifier: GPL-2.0
#
# psem's KUnit suites (CONFIG_PSEM_KUNIT_TEST): one module a suite, named
# after its file, and psem_kunit_lib, the helper library they share
# (psem_test.h), whose functions are exported in namespace PSEM_KUNIT.
# The NMI suite sends NMIs through the local APIC, so it is x86 only.

obj-$(CONFIG_PSEM_KUNIT_TEST) += psem_kunit_lib.o
psem_kunit_lib-y := psem_test_lib.o psem_test_fix.o

ifdef CONFIG_X86_LOCAL_APIC
obj-$(CONFIG_PSEM_KUNIT_TEST) += psem_nmi_kunit.o
psem_nmi_kunit-y := psem_nmi_test.o psem_nmi_send.o
endif
