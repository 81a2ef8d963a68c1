/**
 * The handler of every contract operation, by operationId. scripts/check-operations.ts fails CI
 * unless this set equals the set of operationIds in the bundled document.
 */
import type { Handler } from 'openapi-backend';
import { AppError } from '../../domain/errors';
import { getAccount } from './account/getAccount';
import { checkCompany } from './companies/checkCompany';
import { getCompany } from './companies/getCompany';
import { getHealth } from './health/getHealth';
import { getReadiness } from './health/getReadiness';
import { bulkEnrichPeople } from './people/bulkEnrichPeople';
import { bulkGetPeople } from './people/bulkGetPeople';
import { checkPerson } from './people/checkPerson';
import { getPerson } from './people/getPerson';
import { notImplemented } from './notImplemented';
import { getHeadcountBySeniority } from './companies/getHeadcountBySeniority';
import { listAlumni } from './institutions/listAlumni';
import { listColleagues } from './people/listColleagues';
import { listCurrentEmployees } from './companies/listCurrentEmployees';
import { listDecisionMakers } from './companies/listDecisionMakers';
import { listHiringSignals } from './companies/listHiringSignals';
import { listJobChanges } from './people/listJobChanges';
import { listPastEmployees } from './companies/listPastEmployees';
import { listSimilarPeople } from './people/listSimilarPeople';
import { searchCompanies } from './companies/searchCompanies';
import { searchPeople } from './people/searchPeople';
import { enrichCompanyRealtime } from './realtime/enrichCompanyRealtime';
import { enrichPersonRealtime } from './realtime/enrichPersonRealtime';
import { createMonitor } from './monitors/createMonitor';
import { deleteMonitor } from './monitors/deleteMonitor';
import { deleteMonitorById } from './monitors/deleteMonitorById';
import { getMonitor } from './monitors/getMonitor';
import { listMonitors } from './monitors/listMonitors';
import { createSession } from './workspace/createSession';
import { getSession } from './workspace/getSession';
import { deleteSession } from './workspace/deleteSession';
import { listWorkspaceKeys } from './workspace/listWorkspaceKeys';
import { createWorkspaceKey } from './workspace/createWorkspaceKey';
import { revokeWorkspaceKey } from './workspace/revokeWorkspaceKey';
import { listWorkspaceMembers } from './workspace/listWorkspaceMembers';
import { setMemberAllowance } from './workspace/setMemberAllowance';
import { getWorkspaceUsage } from './workspace/getWorkspaceUsage';
import { revealMonitorSecret } from './workspace/revealMonitorSecret';
import { rotateMonitorSecret } from './workspace/rotateMonitorSecret';
import { listMonitorDeliveries } from './monitors/listMonitorDeliveries';
import { listEvents } from './monitors/listEvents';
import { listPersonHistory } from './people/listPersonHistory';
import { listCompanyHistory } from './companies/listCompanyHistory';
import { redeliverMonitorDelivery } from './monitors/redeliverMonitorDelivery';
import { testMonitor } from './monitors/testMonitor';
import { bulkMatchPeople } from './match/bulkMatchPeople';
import { matchCompany } from './match/matchCompany';
import { matchPerson } from './match/matchPerson';
import { createJob } from './jobs/createJob';
import { listJobs } from './jobs/listJobs';
import { getJob } from './jobs/getJob';
import { cancelJob } from './jobs/cancelJob';
import { deleteJob } from './jobs/deleteJob';
import { getJobResults } from './jobs/getJobResults';
import { listJobDeliveries } from './jobs/listJobDeliveries';
import type { HandlerDeps, OperationHandler, OperationHandlers, OperationId } from './types';

/** Described by the contract, answered with 501 NOT_IMPLEMENTED until the issue that serves each lands. */
export const NOT_IMPLEMENTED_OPERATIONS = [] as const satisfies readonly OperationId[];

type Implemented = Exclude<OperationId, (typeof NOT_IMPLEMENTED_OPERATIONS)[number]>;

export function operationHandlers(deps: HandlerDeps): OperationHandlers {
  const implemented: Pick<OperationHandlers, Implemented> = {
    getHealth: getHealth(),
    getReadiness: getReadiness(deps),
    getAccount: getAccount(deps),
    getPerson: getPerson(deps),
    checkPerson: checkPerson(deps),
    bulkEnrichPeople: bulkEnrichPeople(deps),
    bulkGetPeople: bulkGetPeople(deps),
    getCompany: getCompany(deps),
    checkCompany: checkCompany(deps),
    getHeadcountBySeniority: getHeadcountBySeniority(deps),
    listAlumni: listAlumni(deps),
    listColleagues: listColleagues(deps),
    listCurrentEmployees: listCurrentEmployees(deps),
    listDecisionMakers: listDecisionMakers(deps),
    listHiringSignals: listHiringSignals(deps),
    listJobChanges: listJobChanges(deps),
    listPastEmployees: listPastEmployees(deps),
    listSimilarPeople: listSimilarPeople(deps),
    searchCompanies: searchCompanies(deps),
    searchPeople: searchPeople(deps),
    matchPerson: matchPerson(deps),
    matchCompany: matchCompany(deps),
    bulkMatchPeople: bulkMatchPeople(deps),
    enrichPersonRealtime: enrichPersonRealtime(deps),
    enrichCompanyRealtime: enrichCompanyRealtime(deps),
    createMonitor: createMonitor(deps),
    listMonitors: listMonitors(deps),
    getMonitor: getMonitor(deps),
    deleteMonitor: deleteMonitor(deps),
    deleteMonitorById: deleteMonitorById(deps),
    createSession: createSession(deps),
    getSession: getSession(),
    deleteSession: deleteSession(deps),
    listWorkspaceKeys: listWorkspaceKeys(deps),
    createWorkspaceKey: createWorkspaceKey(deps),
    revokeWorkspaceKey: revokeWorkspaceKey(deps),
    listWorkspaceMembers: listWorkspaceMembers(deps),
    setMemberAllowance: setMemberAllowance(deps),
    getWorkspaceUsage: getWorkspaceUsage(deps),
    revealMonitorSecret: revealMonitorSecret(deps),
    rotateMonitorSecret: rotateMonitorSecret(deps),
    listMonitorDeliveries: listMonitorDeliveries(deps),
    listEvents: listEvents(deps),
    listPersonHistory: listPersonHistory(deps),
    listCompanyHistory: listCompanyHistory(deps),
    testMonitor: testMonitor(deps),
    redeliverMonitorDelivery: redeliverMonitorDelivery(deps),
    createJob: createJob(deps),
    listJobs: listJobs(deps),
    getJob: getJob(deps),
    cancelJob: cancelJob(deps),
    deleteJob: deleteJob(deps),
    getJobResults: getJobResults(deps),
    listJobDeliveries: listJobDeliveries(deps),
  };
  const pending = Object.fromEntries(NOT_IMPLEMENTED_OPERATIONS.map((id) => [id, notImplemented(id)])) as Pick<
    OperationHandlers,
    (typeof NOT_IMPLEMENTED_OPERATIONS)[number]
  >;
  return { ...implemented, ...pending };
}

/**
 * Registered with openapi-backend too, so its strict mode checks the ids against the document at
 * start. Requests are dispatched by middleware/dispatch.ts, which never calls these wrappers.
 */
export function registrations(handlers: OperationHandlers): Record<string, Handler> {
  const unused = () => {
    throw new AppError('INTERNAL_ERROR', 'openapi-backend dispatch is not used');
  };
  return Object.fromEntries(Object.keys(handlers).map((id) => [id, unused]));
}
