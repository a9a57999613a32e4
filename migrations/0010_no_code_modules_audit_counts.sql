CREATE TABLE `no_code_modules` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`module_id` text NOT NULL,
	`enabled` integer NOT NULL,
	`version_pin` text NOT NULL,
	`variable_options` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`module_id`) REFERENCES `registry_modules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `no_code_modules_module` ON `no_code_modules` (`module_id`);--> statement-breakpoint
-- Hand-written below: modules marked no-code before no-code modules existed get one (enabled, latest version).
INSERT INTO `no_code_modules` (`id`, `organization_id`, `module_id`, `enabled`, `version_pin`, `variable_options`, `created_at`, `updated_at`)
  SELECT 'nocode-' || lower(hex(randomblob(8))), `organization_id`, `id`, 1, '', '[]', `updated_at`, `updated_at` FROM `registry_modules` WHERE `no_code` = 1;
--> statement-breakpoint
-- The audit trail's length per organization, in `list_counts` like the other lists (list `audit-events`),
-- so a page of the trail never counts the whole trail. Events are never updated, so no reorder trigger.
CREATE TRIGGER `audit_events_count_insert` AFTER INSERT ON `audit_events` BEGIN
  INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) VALUES ('audit-events', new.`organization_id`, 1, 1)
    ON CONFLICT (`list`, `organization_id`) DO UPDATE SET `total` = `total` + 1, `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `audit_events_count_delete` AFTER DELETE ON `audit_events` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1, `version` = `version` + 1 WHERE `list` = 'audit-events' AND `organization_id` = old.`organization_id`;
END;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`)
  SELECT 'audit-events', `organization_id`, count(*), 0 FROM `audit_events` WHERE `organization_id` IN (SELECT `id` FROM `organizations`) GROUP BY 1, 2;
