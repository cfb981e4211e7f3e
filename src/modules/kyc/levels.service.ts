/** GET /kyc/levels, /kyb/levels (built-in plus custom, unpaginated) and the custom-level CRUD. */

import { and, eq } from 'drizzle-orm';
import { verificationLevels } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { BUILTIN_LEVELS, CHECKS_OF } from '../../providers/verification/levels';
import type { VerificationKind } from '../../providers/verification/port';
import { conflict, invalidField, notFound } from '../../shared/errors';
import { withActivity } from '../activity/activity-writer.service';
import { isUniqueViolation } from '../customers/customers.repo';
import { KycMessages } from './kyc.messages';
import { type CustomLevelRow, isBuiltinName, listCustomLevels } from './levels.repo';

function customView(kind: VerificationKind, r: CustomLevelRow) {
  return {
    level_id: r.id as string | null,
    name: r.name,
    kind,
    description: r.description,
    checks: r.checks,
    custom: true,
    created_at: r.createdAt.toISOString() as string | null,
  };
}

export async function listLevels(deps: Pick<Deps, 'db'>, clientId: string, kind: VerificationKind) {
  const builtins = BUILTIN_LEVELS[kind].map((l) => ({
    level_id: null,
    name: l.name,
    kind,
    description: l.description as string | null,
    checks: l.checks,
    custom: false,
    created_at: null,
  }));
  const custom = (await listCustomLevels(deps.db, clientId, kind)).map((r) => customView(kind, r));
  return { levels: [...builtins, ...custom] };
}

export async function listCustom(deps: Pick<Deps, 'db'>, clientId: string, kind: VerificationKind) {
  return { levels: (await listCustomLevels(deps.db, clientId, kind)).map((r) => customView(kind, r)) };
}

export async function createCustomLevel(
  deps: Pick<Deps, 'db' | 'clock'>,
  clientId: string,
  kind: VerificationKind,
  input: { name: string; checks: string[]; description?: string | null },
) {
  const allowed = CHECKS_OF[kind];
  input.checks.forEach((c, i) => {
    if (!allowed.includes(c))
      throw invalidField(['body', 'checks', i], KycMessages.unknownCheck(c, allowed), 'enum');
  });
  if (isBuiltinName(kind, input.name)) throw conflict(KycMessages.levelExists);
  try {
    const row = await withActivity(
      deps.db,
      async (tx) =>
        (
          await tx
            .insert(verificationLevels)
            .values({
              clientId,
              kind,
              name: input.name,
              description: input.description ?? null,
              checks: [...new Set(input.checks)],
              createdAt: deps.clock.now(),
            })
            .returning()
        )[0]!,
      (r) => ({
        clientId,
        action: 'verification_level.created',
        at: deps.clock.now(),
        target: { type: 'verification_level', id: r.id, label: r.name },
        changes: { checks: { from: null, to: r.checks } },
      }),
    );
    return customView(kind, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(KycMessages.levelExists);
    throw err;
  }
}

export async function deleteCustomLevel(
  deps: Pick<Deps, 'db' | 'clock'>,
  clientId: string,
  kind: VerificationKind,
  id: string,
) {
  const rows = await withActivity(
    deps.db,
    (tx) =>
      tx
        .delete(verificationLevels)
        .where(
          and(
            eq(verificationLevels.id, id),
            eq(verificationLevels.clientId, clientId),
            eq(verificationLevels.kind, kind),
          ),
        )
        .returning({ id: verificationLevels.id, name: verificationLevels.name }),
    (r) =>
      r.length === 0
        ? null
        : {
            clientId,
            action: 'verification_level.deleted',
            at: deps.clock.now(),
            target: { type: 'verification_level', id, label: r[0]!.name },
          },
  );
  if (rows.length === 0) throw notFound(KycMessages.levelNotFound);
}
