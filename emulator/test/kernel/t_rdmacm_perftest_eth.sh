#!/usr/bin/env bash
# t_rdmacm_perftest.sh on RoCE.
PERFTEST_LINK=eth exec bash "$(dirname "$0")/t_rdmacm_perftest.sh"
