import { useState } from 'react';
import { api, call, type Schemas } from '../api';
import { CopyButton, Empty, ErrorBox, fmtDate, Loading, Pager, TableHead, useLoad } from '../components';

const PER_PAGE = 10;

export function Keys({ role }: { role: 'owner' | 'member' }) {
  const [page, setPage] = useState(1);
  const keys = useLoad(() => call(api.GET('/workspace/keys', { params: { query: { page, per_page: PER_PAGE } } })), [page]);
  const [created, setCreated] = useState<{ key: Schemas['WorkspaceKey']; api_key: string } | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [member, setMember] = useState('');
  const [allowance, setAllowance] = useState('');
  const [membersKey, setMembersKey] = useState(0);

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    setProblem(null);
    const body: Schemas['CreateWorkspaceKeyRequest'] = {};
    if (role === 'owner' && member.trim()) body.member = member.trim();
    if (role === 'owner' && allowance.trim()) body.allowance = Number(allowance);
    try {
      const res = await call(api.POST('/workspace/keys', { body }));
      setCreated({ key: res.key, api_key: res.api_key });
      setMember('');
      setAllowance('');
      keys.reload();
      setMembersKey((k) => k + 1);
    } catch (err) {
      setProblem(err);
    }
  };

  const revoke = async (id: string) => {
    setProblem(null);
    try {
      await call(api.DELETE('/workspace/keys/{key_id}', { params: { path: { key_id: id } } }));
      setConfirming(null);
      keys.reload();
      setMembersKey((k) => k + 1);
    } catch (err) {
      setProblem(err);
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {created && (
        <div className="reveal" role="status" data-testid="new-key">
          <h3>New key for {created.key.member.name}</h3>
          <p>
            This is the <strong>only time</strong> the key is shown: copy it now. It is stored as a hash and cannot be shown again.
          </p>
          <p>
            <code className="secret" data-testid="new-key-value">
              {created.api_key}
            </code>
          </p>
          <p>
            <CopyButton text={created.api_key} label="Copy key" />{' '}
            <button type="button" onClick={() => setCreated(null)}>
              Done, hide it
            </button>
          </p>
        </div>
      )}
      <form className="row" onSubmit={create} aria-label="Create an API key">
        {role === 'owner' && (
          <>
            <label>
              Member (empty: the owner)
              <input value={member} onChange={(e) => setMember(e.target.value)} maxLength={100} name="member" autoComplete="off" />
            </label>
            <label>
              Allowance (requests/min, optional)
              <input value={allowance} onChange={(e) => setAllowance(e.target.value)} inputMode="numeric" name="allowance" autoComplete="off" />
            </label>
          </>
        )}
        <button type="submit">Create key</button>
      </form>
      <ErrorBox problem={problem} />
      {keys.loading && !keys.data && <Loading />}
      <ErrorBox problem={keys.problem} />
      {keys.data && keys.data.total === 0 && <Empty>No API keys yet.</Empty>}
      {keys.data && keys.data.results.length > 0 && (
        <table data-testid="keys-table">
          <TableHead columns={['Key', 'Member', 'Allowance', 'Created', 'Last used', 'Status']} actions />
          <tbody>
            {keys.data.results.map((k) => (
              <tr key={k.id} data-prefix={k.prefix}>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>
                  {k.member.name} <span className="muted">({k.member.role})</span>
                </td>
                <td>{k.allowance ?? 'workspace'}</td>
                <td>{fmtDate(k.created_at)}</td>
                <td>{k.last_used_at ? fmtDate(k.last_used_at) : 'never'}</td>
                <td>
                  <span className={`badge ${k.status === 'active' ? 'ok' : 'bad'}`}>{k.status}</span>
                </td>
                <td>
                  {k.status === 'active' &&
                    (confirming === k.id ? (
                      <span className="confirm">
                        Revoke {k.prefix}…? It stops working at once.{' '}
                        <button type="button" className="danger" onClick={() => revoke(k.id)}>
                          Yes, revoke
                        </button>{' '}
                        <button type="button" className="secondary" onClick={() => setConfirming(null)}>
                          Cancel
                        </button>
                      </span>
                    ) : (
                      <button type="button" className="secondary" onClick={() => setConfirming(k.id)} aria-label={`Revoke ${k.prefix}`}>
                        Revoke
                      </button>
                    ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {keys.data && <Pager page={page} perPage={PER_PAGE} total={keys.data.total} onPage={setPage} />}
      <Members key={membersKey} role={role} />
    </section>
  );
}

function Members({ role }: { role: 'owner' | 'member' }) {
  const [page, setPage] = useState(1);
  const members = useLoad(() => call(api.GET('/workspace/members', { params: { query: { page, per_page: PER_PAGE } } })), [page]);
  const [editing, setEditing] = useState<{ id: string; value: string } | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!editing) return;
    setProblem(null);
    try {
      const value = editing.value.trim();
      await call(
        api.PUT('/workspace/members/{member_id}/allowance', {
          params: { path: { member_id: editing.id } },
          body: { allowance: value === '' ? null : Number(value) },
        }),
      );
      setEditing(null);
      members.reload();
    } catch (err) {
      setProblem(err);
    }
  };
  return (
    <section aria-labelledby="members-title">
      <h3 id="members-title">Members and allowances</h3>
      <ErrorBox problem={problem ?? members.problem} />
      {members.data && members.data.total === 0 && <Empty>No members.</Empty>}
      {members.data && members.data.results.length > 0 && (
        <table data-testid="members-table">
          <TableHead columns={['Name', 'Role', 'Allowance (requests/min)', 'Active keys']} />
          <tbody>
            {members.data.results.map((m) => (
              <tr key={m.id}>
                <td>{m.name}</td>
                <td>{m.role}</td>
                <td>
                  {editing?.id === m.id ? (
                    <form onSubmit={save} className="row">
                      <label>
                        <span className="sr-only">Allowance of {m.name}</span>
                        <input value={editing.value} onChange={(e) => setEditing({ id: m.id, value: e.target.value })} inputMode="numeric" autoFocus />
                      </label>
                      <button type="submit">Save</button>
                      <button type="button" className="secondary" onClick={() => setEditing(null)}>
                        Cancel
                      </button>
                    </form>
                  ) : (
                    <>
                      {m.allowance ?? (m.role === 'owner' ? 'whole workspace' : 'shares the workspace window')}{' '}
                      {role === 'owner' && m.role === 'member' && (
                        <button type="button" className="secondary" onClick={() => setEditing({ id: m.id, value: m.allowance ? String(m.allowance) : '' })} aria-label={`Change the allowance of ${m.name}`}>
                          Change
                        </button>
                      )}
                    </>
                  )}
                </td>
                <td>{m.active_keys}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {members.data && <Pager page={page} perPage={PER_PAGE} total={members.data.total} onPage={setPage} />}
    </section>
  );
}
