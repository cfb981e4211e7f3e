/**
 * Send a contract request (POST /contracts/send): from a saved template (one participant per role
 * of the template), or from an uploaded PDF with one signer whose signature goes at the foot of the
 * last page (the API makes it an ad hoc template). One idempotency key per intended request.
 */
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { newIdempotencyKey } from '../api';
import { type ApiBody, useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { FileField, fileBase64 } from '../ui/files';
import { ErrorBox, Field, Page, Select } from '../ui/kit';
import { QueryError } from '../ui/states';

type SendBody = ApiBody<'post', '/contracts/send'>;

/** The single signer of an uploaded PDF, signing at the foot of the last page. */
const uploadRoles = (pages: number) => ({
  roles: [{ role: 'signer', kind: 'signer' as const, signing_order: 1 }],
  fields: [
    {
      field_id: 'signature',
      role: 'signer',
      type: 'signature' as const,
      page: pages,
      x: 0.1,
      y: 0.85,
      width: 0.4,
      height: 0.06,
    },
  ],
});

export function ContractSendPage() {
  const { can } = useSession();
  const navigate = useNavigate();
  const templates = useApiQuery('/contracts/templates', { query: { page_size: 200 } });
  // Unchosen: a template when there is one, otherwise an uploaded PDF (not "from a template" with none).
  const [chosenSource, setSource] = useState<'template' | 'upload' | null>(null);
  const [templateId, setTemplateId] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [pages, setPages] = useState('1');
  const [title, setTitle] = useState('');
  const [message, setMessage] = useState('');
  const [people, setPeople] = useState<Record<string, { name: string; email: string }>>({});
  const [key, setKey] = useState(newIdempotencyKey);
  const act = useApiActions({ invalidate: ['/contracts/requests'] });

  if (!can('contracts.send')) return <Page title="Send a contract">Your role cannot send contracts.</Page>;
  const list = templates.data?.templates ?? [];
  const source = chosenSource ?? (templates.data && list.length === 0 ? 'upload' : 'template');
  const template = list.find((t) => t.template_id === (templateId || list[0]?.template_id));
  const roles =
    source === 'template' ? (template?.roles ?? []) : [{ role: 'signer', kind: 'signer', signing_order: 1 }];
  const person = (role: string) => people[role] ?? { name: '', email: '' };
  const setPerson = (role: string, k: 'name' | 'email') => (v: string) =>
    setPeople({ ...people, [role]: { ...person(role), [k]: v } });

  const submit = () =>
    act.run(async () => {
      const participants = roles.map((r) => ({ role: r.role, ...person(r.role) }));
      let origin: Pick<SendBody, 'template_id' | 'document'>;
      if (source === 'template') origin = { template_id: template?.template_id };
      else {
        if (!file) throw new Error('Choose a PDF file');
        const content_base64 = await fileBase64(file);
        origin = { document: { file_name: file.name, content_base64, ...uploadRoles(Number(pages) || 1) } };
      }
      const r = await act.call('post', '/contracts/send', {
        body: {
          ...origin,
          ...(title.trim() ? { title: title.trim() } : {}),
          ...(message.trim() ? { message: message.trim() } : {}),
          participants,
        },
        idempotencyKey: key,
      });
      setKey(newIdempotencyKey());
      navigate(`/contracts/${r.contract_request_id}`);
    });

  return (
    <Page title="Send a contract">
      <p>
        <Link to="/contracts">Back to contracts</Link>
      </p>
      <QueryError error={templates.error} what="the contract templates" />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Select
          label="Document"
          name="source"
          value={source}
          onChange={setSource}
          options={[
            ['template', 'From a template'],
            ['upload', 'Upload a PDF'],
          ]}
        />
        {source === 'template' ? (
          list.length ? (
            <Select
              label="Template"
              name="template_id"
              value={template?.template_id ?? ''}
              onChange={setTemplateId}
              options={list.map((t) => [t.template_id, t.name] as const)}
            />
          ) : (
            <p className="empty">No templates yet: upload a PDF instead.</p>
          )
        ) : (
          <>
            <FileField label="PDF file" accept="application/pdf,.pdf" onChange={setFile} />
            <Field
              label="Signature on page"
              name="page"
              inputMode="numeric"
              value={pages}
              onChange={setPages}
              hint="The signer signs at the foot of this page (usually the last)."
            />
          </>
        )}
        <Field
          label="Title"
          name="title"
          value={title}
          onChange={setTitle}
          hint="Defaults to the document name."
        />
        <Field label="Message to participants" name="message" value={message} onChange={setMessage} />
        {roles.map((r) => (
          <fieldset key={r.role}>
            <legend>
              Participant: {r.role} ({r.kind}, order {r.signing_order})
            </legend>
            <Field
              label={`Name (${r.role})`}
              name={`${r.role}_name`}
              value={person(r.role).name}
              onChange={setPerson(r.role, 'name')}
              required
            />
            <Field
              label={`Email (${r.role})`}
              name={`${r.role}_email`}
              type="email"
              value={person(r.role).email}
              onChange={setPerson(r.role, 'email')}
              required
            />
          </fieldset>
        ))}
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy}>
          {act.busy ? 'Working…' : 'Send contract'}
        </button>
      </form>
    </Page>
  );
}
