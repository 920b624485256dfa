import type { FileScene, z } from '@market/contracts';

export type Scene = z.infer<typeof FileScene>;

/** Contract §6: listing pictures and avatars are shown to anyone; everything else is evidence or identity papers. */
const PUBLIC_SCENES: ReadonlySet<Scene> = new Set(['listing', 'avatar']);

export function isPublicScene(scene: Scene): boolean {
  return PUBLIC_SCENES.has(scene);
}
