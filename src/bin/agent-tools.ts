#!/usr/bin/env node
import { runBin } from "../cli/run-bin.js";

// The command line: `agent-tools <command>` (help lists them).
runBin("agent-tools");
