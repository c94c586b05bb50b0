#!/usr/bin/env node
import { runBin } from "../cli/run-bin.js";

// The package's own name, so `npx agent-tools-runtime …` (and `npx --package=<tgz> agent-tools-runtime`) finds a program: the same as agent-tools.
runBin("agent-tools");
