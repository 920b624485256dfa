import { isPublicScene, type Scene } from './scene';

export interface ReadableFile {
  scene: Scene;
  owner_id: string;
}

/**
 * Contract §6: public scenes are for anyone; a private file is for its uploader and for the users
 * it was attached to (the parties of an order). The back office reads through its own route.
 */
export function userMayRead(file: ReadableFile, userId: string | null, attachedToUser: boolean): boolean {
  if (isPublicScene(file.scene)) return true;
  if (userId === null) return false;
  return file.owner_id === userId || attachedToUser;
}
