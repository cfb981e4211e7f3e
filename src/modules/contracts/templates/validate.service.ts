/**
 * Template checks a schema cannot express, as 422 entries whose `loc` names the exact place:
 * the PDF (magic bytes, size, page count), unique roles, signer roles with a signature field, and
 * each field's role, page and page-relative geometry; the roles of several templates merged into one set.
 */
import type { ContractFieldDef, ContractRoleDef } from '../../../db/schema/index';
import { invalidField, ValidationError, type ValidationIssue } from '../../../shared/errors';
import { ContractMessages } from '../contracts.messages';
import { hasPdfMagic, readPageCount, sha256Hex } from '../pdf.service';

export interface CheckedDocument {
  fileName: string;
  content: Buffer;
  size: number;
  sha256: string;
  pageCount: number;
}

type Loc = (string | number)[];
const issue = (loc: Loc, msg: string): ValidationIssue => ({ loc, msg, type: 'value_error' });

/** Decodes and checks the PDF; 422 at `<base>.content_base64`. */
export async function checkDocument(
  doc: { file_name: string; content_base64: string },
  base: Loc,
  maxBytes: number,
): Promise<CheckedDocument> {
  const loc = [...base, 'content_base64'];
  const b64 = doc.content_base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 === 1)
    throw new ValidationError([issue(loc, ContractMessages.documentNotPdf)]);
  if (Math.floor((b64.length * 3) / 4) > maxBytes + 3)
    throw new ValidationError([issue(loc, ContractMessages.documentTooLarge(maxBytes))]);
  const content = Buffer.from(b64, 'base64');
  if (content.length > maxBytes)
    throw new ValidationError([issue(loc, ContractMessages.documentTooLarge(maxBytes))]);
  if (!hasPdfMagic(content)) throw new ValidationError([issue(loc, ContractMessages.documentNotPdf)]);
  const pageCount = await readPageCount(content);
  if (!pageCount) throw new ValidationError([issue(loc, ContractMessages.documentNotPdf)]);
  return { fileName: doc.file_name, content, size: content.length, sha256: sha256Hex(content), pageCount };
}

export interface RoleInput {
  role: string;
  kind: ContractRoleDef['kind'];
  signing_order?: number;
}
export interface FieldInput {
  field_id: string;
  role: string;
  type: ContractFieldDef['type'];
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required?: boolean;
  label?: string | null;
  value_key?: string | null;
}

const EPS = 1e-9;

/** Normalized roles and fields, or a 422 listing every problem with its loc. */
export function checkRolesAndFields(
  roles: RoleInput[],
  fields: FieldInput[],
  pageCount: number,
  base: Loc,
): { roles: ContractRoleDef[]; fields: ContractFieldDef[] } {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  roles.forEach((r, i) => {
    if (seen.has(r.role))
      issues.push(issue([...base, 'roles', i, 'role'], ContractMessages.duplicateRoleKey));
    seen.add(r.role);
  });
  const ids = new Set<string>();
  fields.forEach((f, i) => {
    const at = [...base, 'fields', i];
    if (ids.has(f.field_id)) issues.push(issue([...at, 'field_id'], ContractMessages.duplicateFieldId));
    ids.add(f.field_id);
    if (!seen.has(f.role)) issues.push(issue([...at, 'role'], ContractMessages.fieldUnknownRole));
    if (f.page > pageCount)
      issues.push(issue([...at, 'page'], ContractMessages.fieldPageOutOfRange(pageCount)));
    if (f.x + f.width > 1 + EPS) issues.push(issue([...at, 'width'], ContractMessages.fieldOutsidePage));
    if (f.y + f.height > 1 + EPS) issues.push(issue([...at, 'height'], ContractMessages.fieldOutsidePage));
  });
  roles.forEach((r, i) => {
    if (r.kind === 'signer' && !fields.some((f) => f.role === r.role && f.type === 'signature'))
      issues.push(issue([...base, 'roles', i], ContractMessages.signerNeedsSignature));
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    roles: roles.map((r) => ({ role: r.role, kind: r.kind, signing_order: r.signing_order ?? 1 })),
    fields: fields.map((f) => ({
      field_id: f.field_id,
      role: f.role,
      type: f.type,
      page: f.page,
      x: f.x,
      y: f.y,
      width: f.width,
      height: f.height,
      required: f.required ?? true,
      label: f.label ?? null,
      value_key: f.value_key ?? null,
    })),
  };
}

/** Roles merged by key across the templates (the same role in two templates is one participant). */
export function mergeRoles(sets: ContractRoleDef[][], loc: (string | number)[]): ContractRoleDef[] {
  const out = new Map<string, ContractRoleDef>();
  for (const roles of sets)
    for (const r of roles) {
      const seen = out.get(r.role);
      if (seen && seen.kind !== r.kind) throw invalidField(loc, ContractMessages.conflictingKind(r.role));
      if (!seen) out.set(r.role, r);
      else if (r.signing_order < seen.signing_order)
        out.set(r.role, { ...seen, signing_order: r.signing_order });
    }
  return [...out.values()];
}
