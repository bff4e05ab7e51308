#!/bin/sh
# Nightly self-improvement run; cron calls this from the repository root.
set -eu
export TINKERBOT_STATE="${TINKERBOT_STATE:-$HOME/.tinkerbot}"
python -m tinkerbot.cli improve --rounds "${ROUNDS:-3}"
