/** Room for multipart boundaries and part headers around the tarball. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/** Form fields a multipart publish may carry the tarball in, in order of preference. */
const FILE_FIELDS = ['tarball', 'package', 'file'];

export type UploadResult = { ok: true; bytes: Buffer } | { ok: false; message: string };

/**
 * The tarball of a publish: the body itself (`application/gzip`, `application/octet-stream`,
 * anything not multipart), or the file part of a `multipart/form-data` body (field
 * `tarball`, `package` or `file`, else the only file). Multipart is parsed by Node's own
 * fetch implementation rather than by hand.
 */
export async function readUpload(
  contentType: string | undefined,
  body: Buffer,
): Promise<UploadResult> {
  if (!/^multipart\/form-data\b/i.test(contentType ?? '')) return { ok: true, bytes: body };
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body), {
      headers: { 'content-type': contentType ?? '' },
    }).formData();
  } catch {
    return {
      ok: false,
      message:
        'The multipart/form-data body could not be read (a missing or wrong boundary, or a damaged part).',
    };
  }
  const files = [...form.entries()].filter(([, value]) => typeof value !== 'string') as [
    string,
    Blob,
  ][];
  const chosen =
    FILE_FIELDS.map((field) => files.find(([name]) => name === field)).find(
      (entry) => entry !== undefined,
    ) ?? (files.length === 1 ? files[0] : undefined);
  if (chosen === undefined) {
    return {
      ok: false,
      message:
        files.length === 0
          ? 'The multipart/form-data body has no file part; send the .tgz as the field "tarball".'
          : `The multipart/form-data body has ${files.length} files; send the .tgz as the field "tarball".`,
    };
  }
  return { ok: true, bytes: Buffer.from(await chosen[1].arrayBuffer()) };
}
