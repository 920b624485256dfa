// file-type is ESM-only; a real dynamic import loads it from this CommonJS build.
let fileType: Promise<typeof import('file-type')> | null = null;

/** The MIME type the file's bytes say it is (magic numbers), or undefined when they say nothing known. */
export async function sniffContentType(filePath: string): Promise<string | undefined> {
  fileType ??= import('file-type');
  const detected = await (await fileType).fileTypeFromFile(filePath);
  return detected?.mime;
}
