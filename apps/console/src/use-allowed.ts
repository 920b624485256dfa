import { useCan } from '@refinedev/core';
import type { Capability } from './access';

/** Refine's `can` question for a capability of src/access.ts: a screen (`listings`) is its resource's `list`, an action (`listings.review`) its resource's action. */
export function canParams(capability: Capability): { resource: string; action: string } {
  const dot = capability.indexOf('.');
  return dot < 0 ? { resource: capability, action: 'list' } : { resource: capability.slice(0, dot), action: capability.slice(dot + 1) };
}

/** Whether the signed-in admin may use this screen or action, as the accessControlProvider answers (false until it has). */
export function useAllowed(capability: Capability): boolean {
  return useCan(canParams(capability)).data?.can ?? false;
}
