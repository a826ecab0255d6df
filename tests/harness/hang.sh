#!/bin/sh
# A guest that never finishes must be killed at the timeout.
while :; do sleep 1; done
