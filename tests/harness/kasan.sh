#!/bin/sh
# A KASAN report must fail the run although the script exits 0: a use
# after free (LKDTM READ_AFTER_FREE), on the debug kernel.
echo READ_AFTER_FREE >/sys/kernel/debug/provoke-crash/DIRECT
exit 0
