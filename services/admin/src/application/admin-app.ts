/** The former name of `AdminDeps`, kept only while get-dashboard.ts (dashboard helper's file) imports it. */
export type { AdminDeps as AdminApp } from './deps';
