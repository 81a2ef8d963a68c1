/**
 * Migrations are listed here explicitly instead of read from a directory, so they load the same way
 * under tsx, jest and any bundler. Names are the timestamped file names.
 */
import type { Knex } from 'knex';
import * as platform from './20261121000100_platform';
import * as realtimeUsage from './20261121000200_realtime_usage';
import * as lake from './20261121000300_lake';
import * as search from './20261121000400_search';
import * as lakeRules from './20261122000100_lake_rules';
import * as live from './20261122001000_live';
import * as monitors from './20261123000100_monitors';
import * as apiKeyExpiry from './20261201000100_api_key_expiry';
import * as identifierNormalization from './20261201000200_identifier_normalization';
import * as dashboard from './20261202000200_dashboard';
import * as monitorDeliveries from './20261202000100_monitor_deliveries';
import * as deliveryDestinationIndex from './20261202000110_delivery_destination_index';
import * as listSpeed from './20261202000300_list_speed';
import * as listSpeedStats from './20261202000310_list_speed_stats';
import * as importRuleSpeed from './20261202000400_import_rule_speed';
import * as importPositionFacts from './20261203000100_import_position_facts';
import * as countIndexOnly from './20261203000200_count_index_only';
import * as realtimeFetchLeases from './20261204000100_realtime_fetch_leases';
import * as withdrawalCopies from './20261204000200_withdrawal_copies';
import * as walkOrder from './20261204000500_walk_order';
import * as eventFeed from './20261204002300_event_feed';
import * as importCheckpoints from './20261205002200_import_checkpoints';
import * as hotReverification from './20261206000100_hot_reverification';
import * as splicedFetchedAt from './20261207000100_spliced_fetched_at';
import * as recordTextOneKey from './20261208000100_record_text_one_key';
import * as refreshRefusals from './20261208000200_refresh_refusals';
import * as eventFeedPositions from './20261208003200_event_feed_positions';
import * as match from './20261208000100_match';
import * as listJobs from './20261209000100_list_jobs';
import * as matchNameCovering from './20261209000500_match_name_covering';
import * as listJobDeletion from './20261209000600_list_job_deletion';
import * as companyIdOrder from './20261210000100_company_id_order';
import * as searchWordsById from './20261210000200_search_words_by_id';
import * as matchEmployerTrigrams from './20261211000300_match_employer_trigrams';
import * as matchCompanyKeyForms from './20261211000400_match_company_key_forms';
import * as jobFeedEvents from './20261209000200_job_feed_events';
import * as jobDeliveriesByJob from './20261209000300_job_deliveries_by_job';
import * as jobRecordsLz4 from './20261209000400_job_records_lz4';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: Record<string, Migration> = {
  '20261121000100_platform': platform,
  '20261121000200_realtime_usage': realtimeUsage,
  '20261121000300_lake': lake,
  '20261121000400_search': search,
  '20261122000100_lake_rules': lakeRules,
  '20261122001000_live': live,
  '20261123000100_monitors': monitors,
  '20261201000100_api_key_expiry': apiKeyExpiry,
  '20261201000200_identifier_normalization': identifierNormalization,
  '20261202000200_dashboard': dashboard,
  '20261202000100_monitor_deliveries': monitorDeliveries,
  '20261202000110_delivery_destination_index': deliveryDestinationIndex,
  '20261202000300_list_speed': listSpeed,
  '20261202000310_list_speed_stats': listSpeedStats,
  '20261202000400_import_rule_speed': importRuleSpeed,
  '20261203000100_import_position_facts': importPositionFacts,
  '20261203000200_count_index_only': countIndexOnly,
  '20261204000100_realtime_fetch_leases': realtimeFetchLeases,
  '20261204000200_withdrawal_copies': withdrawalCopies,
  '20261204000500_walk_order': walkOrder,
  '20261204002300_event_feed': eventFeed,
  '20261205002200_import_checkpoints': importCheckpoints,
  '20261206000100_hot_reverification': hotReverification,
  '20261207000100_spliced_fetched_at': splicedFetchedAt,
  '20261208000100_record_text_one_key': recordTextOneKey,
  '20261208000200_refresh_refusals': refreshRefusals,
  '20261208003200_event_feed_positions': eventFeedPositions,
  '20261208000100_match': match,
  '20261209000100_list_jobs': listJobs,
  '20261209000200_job_feed_events': jobFeedEvents,
  '20261209000300_job_deliveries_by_job': jobDeliveriesByJob,
  '20261209000400_job_records_lz4': jobRecordsLz4,
  '20261209000500_match_name_covering': matchNameCovering,
  '20261209000600_list_job_deletion': listJobDeletion,
  '20261210000100_company_id_order': companyIdOrder,
  '20261210000200_search_words_by_id': searchWordsById,
  '20261211000300_match_employer_trigrams': matchEmployerTrigrams,
  '20261211000400_match_company_key_forms': matchCompanyKeyForms,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
