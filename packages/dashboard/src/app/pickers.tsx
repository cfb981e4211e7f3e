/** The project and payer choices the create forms share (payment link, recurring payment, schedule). */
import { useSession } from '../session';
import { Select, useLoad } from '../ui/kit';

interface Project {
  project_id: string;
  project_name: string;
  is_frozen: boolean;
}
interface User {
  user_id: string;
  email: string;
}

/** Loads the projects and payers once; `projectId`/`userId` default to the first of each. */
export function useProjectPayer(chosen: { project_id: string; user_id: string }) {
  const { api } = useSession();
  const projects = useLoad(
    () => api.get<{ projects: Project[] }>('/projects', { query: { page_size: 200 } }),
    [api],
  );
  const users = useLoad(() => api.get<{ users: User[] }>('/kyc/lists', { query: { page_size: 200 } }), [api]);
  return {
    error: projects.error ?? users.error,
    projects: projects.data?.projects ?? [],
    users: users.data?.users ?? [],
    projectId: chosen.project_id || projects.data?.projects[0]?.project_id || '',
    userId: chosen.user_id || users.data?.users[0]?.user_id || '',
  };
}

export function ProjectPayerFields(props: {
  pp: ReturnType<typeof useProjectPayer>;
  onProject(v: string): void;
  onPayer(v: string): void;
}) {
  return (
    <>
      <Select
        label="Project"
        name="project_id"
        value={props.pp.projectId}
        onChange={props.onProject}
        options={props.pp.projects.map((p) => [p.project_id, p.project_name] as [string, string])}
      />
      <Select
        label="Payer"
        name="user_id"
        value={props.pp.userId}
        onChange={props.onPayer}
        options={props.pp.users.map((u) => [u.user_id, u.email] as [string, string])}
      />
    </>
  );
}
