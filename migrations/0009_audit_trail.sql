CREATE TABLE `audit_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`organization_id` text NOT NULL,
	`timestamp` integer NOT NULL,
	`accessor_id` text NOT NULL,
	`accessor_description` text NOT NULL,
	`accessor_type` text NOT NULL,
	`request_id` text NOT NULL,
	`resource_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`action` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_events_id_unique` ON `audit_events` (`id`);--> statement-breakpoint
CREATE INDEX `audit_events_org_seq` ON `audit_events` (`organization_id`,`seq`);--> statement-breakpoint
CREATE INDEX `audit_events_org_time` ON `audit_events` (`organization_id`,`timestamp`);