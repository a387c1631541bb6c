#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_rdmacm_perftest.sh on RoCE.
PERFTEST_LINK=eth exec bash "$(dirname "$0")/t_rdmacm_perftest.sh"
