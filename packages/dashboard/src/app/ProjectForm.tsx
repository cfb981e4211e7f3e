/** Create a project bound to an opco (POST /projects); `?opco_id=` preselects the opco. */
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useApiMutation } from '../query';
import { useSession } from '../session';
import { Page } from '../ui/kit';
import { FormError, fieldErrorsOf, Input } from './form-kit';
import { OpcoPicker } from './pickers';

export function ProjectFormPage() {
  const { can } = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [name, setName] = useState('');
  const [opcoId, setOpcoId] = useState(params.get('opco_id') ?? '');
  const create = useApiMutation('post', '/projects', { invalidate: ['/projects'] });
  const errs = fieldErrorsOf(create.error);
  if (!can('projects.write')) return <Page title="New project">Your role cannot create projects.</Page>;
  return (
    <Page title="New project">
      <p>
        <Link to="/opcos">Back to opcos and projects</Link>
      </p>
      <p className="hint">
        Payments are taken in a project. A project takes payments once its opco is activated.
      </p>
      <form
        aria-label="Project"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(
            { body: { project_name: name.trim(), ...(opcoId ? { opco_id: opcoId } : {}) } },
            { onSuccess: () => navigate('/opcos') },
          );
        }}
      >
        <Input
          label="Project name"
          name="project_name"
          value={name}
          onChange={setName}
          error={errs.project_name}
          required
        />
        <OpcoPicker
          label="Opco"
          value={opcoId}
          onChange={setOpcoId}
          error={errs.opco_id}
          bindable
          emptyLabel="No opco yet"
        />
        <FormError error={create.error} fields={errs} />
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create project'}
        </button>
      </form>
    </Page>
  );
}
