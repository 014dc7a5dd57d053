#!/usr/bin/env node
// @ts-check
// Entry point of the `routine-tracker` executable; all behaviour lives in ../lib/.
import { main } from "../lib/main.js";

process.exitCode = await main(process.argv.slice(2), process.env);
