#!/bin/sh
# A kernel WARN must fail the run although the script exits 0.
echo WARNING >/sys/kernel/debug/provoke-crash/DIRECT
exit 0
