/** Client use cases of opcos: create, read, list, edit and delete drafts, submit. */

import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { badRequest, conflict, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { diffChanges, recordActivity } from '../activity/activity-writer.service';
import { setActivationTimer } from './opco-review.service';
import { isDeletable, isEditable, isSubmittable, type OpcoStatus } from './opcos.machine';
import {
  countProjectsBoundTo,
  deleteDraftOpco,
  findClientOpco,
  insertOpco,
  listClientOpcos,
  type OpcoChanges,
  type OpcoRow,
  updateDraftOpco,
} from './opcos.repo';
import { type CreateOpcoInput, DEFAULT_PRIMARY_USE_CASE, type UpdateOpcoInput } from './opcos.schemas';
import { applyOpcoTransition } from './opcos.transitions';
import { toOpcoView } from './opcos.view';
import { checkFields, checkTypeRules } from './opcos-validation.policy';

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

export const OPCO_NOT_DELETABLE = 'Only an opco in draft status can be deleted';
export const OPCO_BOUND = 'Opco is bound to a project; unbind it from its projects before deleting it';

export async function createOpco(deps: D, clientId: string, input: CreateOpcoInput) {
  const { iban, bic } = checkFields(input);
  const opcoType = checkTypeRules({
    opco_type: input.opco_type,
    sole_trader: input.sole_trader ?? null,
    ubos: input.ubos ?? null,
    directors: input.directors ?? null,
    signatories: input.signatories ?? null,
  });
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const created = await insertOpco(tx, {
      clientId,
      status: 'draft',
      opcoType,
      name: input.name,
      domain: input.domain,
      countryCode: input.country_code,
      legalEntityName: input.legal_entity_name ?? null,
      registrationNumber: input.registration_number,
      primaryUseCase: input.primary_use_case ?? DEFAULT_PRIMARY_USE_CASE,
      settlementIban: iban!,
      settlementBic: bic ?? null,
      mcc: input.mcc,
      mccSubtype: input.mcc_subtype ?? null,
      logo: input.logo ?? null,
      parentSubTppId: input.parent_sub_tpp_id ?? null,
      soleTrader: input.sole_trader ?? null,
      ubos: input.ubos ?? null,
      directors: input.directors ?? null,
      signatories: input.signatories ?? null,
      createdAt: now,
      updatedAt: now,
    });
    await recordActivity(tx, {
      clientId,
      action: 'opco.created',
      at: now,
      target: { type: 'opco', id: created.id, label: created.name },
      changes: {
        status: { from: null, to: 'draft' },
        settlement_iban: { from: null, to: created.settlementIban },
      },
    });
    return created;
  });
  return toOpcoView(row);
}

async function loadOpco(deps: Pick<Deps, 'db'>, clientId: string, opcoId: string): Promise<OpcoRow> {
  const row = await findClientOpco(deps.db, clientId, opcoId);
  if (!row) throw notFound(M.opcoNotFound);
  return row;
}

export async function getOpco(deps: Pick<Deps, 'db'>, clientId: string, opcoId: string) {
  return toOpcoView(await loadOpco(deps, clientId, opcoId));
}

export async function listOpcos(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  status?: OpcoStatus,
  q?: string,
) {
  const { rows, total } = await listClientOpcos(deps.db, clientId, page, status, q);
  return { opcos: rows.map(toOpcoView), pagination: paginationMeta(total, page) };
}

export async function updateOpco(deps: D, clientId: string, opcoId: string, input: UpdateOpcoInput) {
  const current = await loadOpco(deps, clientId, opcoId);
  if (!isEditable(current.status)) throw badRequest(M.opcoNotEditable);
  const { iban, bic } = checkFields(input);
  const pick = <K extends keyof UpdateOpcoInput, T>(k: K, fallback: T) =>
    input[k] === undefined ? fallback : input[k];
  checkTypeRules({
    opco_type: pick('opco_type', current.opcoType) as never,
    sole_trader: pick('sole_trader', current.soleTrader),
    ubos: pick('ubos', current.ubos) as unknown[] | null,
    directors: pick('directors', current.directors) as unknown[] | null,
    signatories: pick('signatories', current.signatories) as unknown[] | null,
  });
  const changes: OpcoChanges = { updatedAt: deps.clock.now() };
  if (input.opco_type) changes.opcoType = input.opco_type;
  if (input.name !== undefined) changes.name = input.name;
  if (input.domain !== undefined) changes.domain = input.domain;
  if (input.country_code !== undefined) changes.countryCode = input.country_code;
  if (input.legal_entity_name !== undefined) changes.legalEntityName = input.legal_entity_name;
  if (input.registration_number !== undefined) changes.registrationNumber = input.registration_number;
  if (input.primary_use_case !== undefined) changes.primaryUseCase = input.primary_use_case;
  if (iban !== undefined) changes.settlementIban = iban;
  if (bic !== undefined) changes.settlementBic = bic;
  if (input.mcc !== undefined) changes.mcc = input.mcc;
  if (input.mcc_subtype !== undefined) changes.mccSubtype = input.mcc_subtype;
  if (input.logo !== undefined) changes.logo = input.logo;
  if (input.parent_sub_tpp_id !== undefined) changes.parentSubTppId = input.parent_sub_tpp_id;
  if (input.sole_trader !== undefined) changes.soleTrader = input.sole_trader;
  if (input.ubos !== undefined) changes.ubos = input.ubos;
  if (input.directors !== undefined) changes.directors = input.directors;
  if (input.signatories !== undefined) changes.signatories = input.signatories;
  const row = await deps.db.transaction(async (tx) => {
    const updated = await updateDraftOpco(tx, clientId, opcoId, changes);
    // Zero rows: it was submitted (or deleted) between the read and the update.
    if (!updated) throw badRequest(M.opcoNotEditable);
    const fields = Object.keys(changes).filter((k) => k !== 'updatedAt') as (keyof OpcoRow)[];
    const before = Object.fromEntries(fields.map((f) => [f, current[f]]));
    const after = Object.fromEntries(fields.map((f) => [f, updated[f]]));
    await recordActivity(tx, {
      clientId,
      action: 'opco.updated',
      at: deps.clock.now(),
      target: { type: 'opco', id: opcoId, label: updated.name },
      changes: diffChanges(before, after),
    });
    return updated;
  });
  return toOpcoView(row);
}

export async function deleteOpco(
  deps: Pick<Deps, 'db' | 'clock'>,
  clientId: string,
  opcoId: string,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const current = await findClientOpco(tx, clientId, opcoId);
    if (!current) throw notFound(M.opcoNotFound);
    if (!isDeletable(current.status)) throw badRequest(OPCO_NOT_DELETABLE);
    if ((await countProjectsBoundTo(tx, opcoId)) > 0) throw conflict(OPCO_BOUND);
    if (!(await deleteDraftOpco(tx, clientId, opcoId))) throw badRequest(OPCO_NOT_DELETABLE);
    await recordActivity(tx, {
      clientId,
      action: 'opco.deleted',
      at: deps.clock.now(),
      target: { type: 'opco', id: opcoId, label: current.name },
    });
  });
}

/**
 * Submits a draft: on sandbox straight to the (simulated) payment network, activated by the
 * approval simulator after SVC_SANDBOX_OPCO_ACTIVATION_SECONDS; on production to staff review.
 */
export async function submitOpco(deps: D, clientId: string, opcoId: string) {
  const now = deps.clock.now();
  const sandbox = deps.config.environment === 'sandbox';
  const row = await deps.db.transaction(async (tx) => {
    const current = await findClientOpco(tx, clientId, opcoId);
    if (!current) throw notFound(M.opcoNotFound);
    if (!isSubmittable(current.status)) throw badRequest(M.opcoAlreadyInStatus(current.status));
    const activationDueAt = sandbox ? addSeconds(now, deps.config.sandboxOpcoActivationSeconds) : null;
    const moved = await applyOpcoTransition(tx, current, sandbox ? 'submit_sandbox' : 'submit_production', {
      now,
      changes: { submittedAt: now, activationDueAt },
    });
    if (activationDueAt) await setActivationTimer(tx, deps.clock, current, activationDueAt);
    return moved;
  });
  return toOpcoView(row);
}
