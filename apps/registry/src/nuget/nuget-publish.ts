import type { IncomingMessage, ServerResponse } from 'node:http';
import { readNupkgContent } from '@toolpack/packs';
import { readBearerToken } from '../auth/tokens.ts';
import { authenticate, readPublishUpload, sendClosing } from '../http/api-routes.ts';
import { sendError, sendJson } from '../http/http-io.ts';
import type { RegistryContext } from '../http/registry-context.ts';
import { publishPack } from '../publish/publish-pack.ts';
import { convertNupkgToPack } from './nupkg-to-pack.ts';

const PUBLISH_HINT =
  'Publish the module folder with Publish-PSResource, or pack it with nuget pack.';

/**
 * `PUT /nuget/v3/package` (NuGet's PackagePublish, what `Publish-PSResource` and
 * `dotnet nuget push` send): a module `.nupkg` with a gallery token as `X-NuGet-ApiKey`
 * becomes a pack and goes through the one publish path (owner, immutable versions, the
 * pack's checks, its tools listed). NuGet clients print the status line, so it carries the
 * first problem; the JSON body has them all.
 */
export async function handleNugetPublish(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const apiKey = request.headers['x-nuget-apikey'];
  const presented =
    (typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : undefined) ??
    readBearerToken(request.headers.authorization);
  const token = await authenticate(context, request, response, presented);
  if (token === undefined) return;
  const bytes = await readPublishUpload(context, request, response);
  if (bytes === undefined) return;

  // Read as `mcp pack add --source` reads a feed's package: one reader of the format.
  const read = await readNupkgContent(bytes, { limits: context.limits, label: 'package.nupkg' });
  const converted =
    read.content === undefined
      ? {
          ok: false as const,
          problems: read.problems.map((problem) => ({ ...problem, hint: PUBLISH_HINT })),
        }
      : await convertNupkgToPack(read.content, {
          workDir: context.publish.workDir,
          limits: context.limits,
        });
  if (!converted.ok) {
    const first = converted.problems[0]?.message ?? 'The package was refused.';
    setStatusMessage(response, first);
    return sendError(response, 422, {
      code: 'E_PACK_INVALID',
      message: `The package was refused; nothing was published: ${first}`,
      problems: converted.problems,
    });
  }
  const outcome = await publishPack(context.publish, {
    bytes: converted.tarball,
    owner: token.owner,
    publishedBy: token.id,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
  });
  if (outcome.status === 503) return sendClosing(response, outcome.message);
  if (outcome.status !== 201) {
    const first = outcome.problems[0]?.message;
    setStatusMessage(
      response,
      first === undefined ? outcome.message : `${outcome.message} ${first}`,
    );
    return sendError(response, outcome.status, {
      code: outcome.code,
      message: outcome.message,
      problems: outcome.problems,
    });
  }
  const { doc } = outcome;
  context.log(
    `published ${doc.name}@${doc.version} from a .nupkg (${token.owner}, token ${token.id})`,
  );
  sendJson(
    response,
    201,
    { name: doc.name, version: doc.version, tools: doc.tools.length },
    {
      location: `/v0/packs/${encodeURIComponent(doc.name)}/versions/${encodeURIComponent(doc.version)}`,
    },
  );
}

/** A status line a NuGet client prints: printable ASCII, one line, bounded. */
function setStatusMessage(response: ServerResponse, text: string): void {
  response.statusMessage = text.replace(/[^\x20-\x7E]+/g, ' ').slice(0, 300);
}
