CREATE TABLE `list_counts` (
	`list` text NOT NULL,
	`organization_id` text NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`list`, `organization_id`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memberships_org_created` ON `organization_memberships` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `run_tasks_org_created` ON `run_tasks` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `workspaces_org_created_name` ON `workspaces` (`organization_id`,`created_at`,`name`);--> statement-breakpoint
CREATE INDEX `workspaces_org_updated_name` ON `workspaces` (`organization_id`,`updated_at`,`name`);--> statement-breakpoint
CREATE INDEX `workspaces_org_lower_name` ON `workspaces` (`organization_id`,lower(name));--> statement-breakpoint
-- Hand-written below (drizzle-kit cannot express triggers or FTS5 tables): `list_counts` kept by
-- triggers on every list table, and trigram indexes (`workspace_names`, `team_names`, `user_names`) for
-- substring search, kept by triggers too. Both are filled from existing rows at the end of each part.
-- `workspace_names` is keyed by the implicit rowid of `workspaces`; nothing here runs VACUUM, which
-- could renumber it.
CREATE TRIGGER `workspaces_count_insert` AFTER INSERT ON `workspaces` BEGIN
  INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) VALUES ('workspaces', new.`organization_id`, 1, 1)
    ON CONFLICT (`list`, `organization_id`) DO UPDATE SET `total` = `total` + 1, `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `workspaces_count_delete` AFTER DELETE ON `workspaces` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1, `version` = `version` + 1 WHERE `list` = 'workspaces' AND `organization_id` = old.`organization_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `workspaces_count_reorder` AFTER UPDATE OF `name`, `created_at`, `updated_at` ON `workspaces` BEGIN
  UPDATE `list_counts` SET `version` = `version` + 1 WHERE `list` = 'workspaces' AND `organization_id` = new.`organization_id`;
END;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) SELECT 'workspaces', `organization_id`, count(*), 0 FROM `workspaces` GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER `teams_count_insert` AFTER INSERT ON `teams` BEGIN
  INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) VALUES ('teams', new.`organization_id`, 1, 1)
    ON CONFLICT (`list`, `organization_id`) DO UPDATE SET `total` = `total` + 1, `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `teams_count_delete` AFTER DELETE ON `teams` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1, `version` = `version` + 1 WHERE `list` = 'teams' AND `organization_id` = old.`organization_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `teams_count_reorder` AFTER UPDATE OF `name` ON `teams` BEGIN
  UPDATE `list_counts` SET `version` = `version` + 1 WHERE `list` = 'teams' AND `organization_id` = new.`organization_id`;
END;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) SELECT 'teams', `organization_id`, count(*), 0 FROM `teams` GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER `run_tasks_count_insert` AFTER INSERT ON `run_tasks` BEGIN
  INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) VALUES ('run-tasks', new.`organization_id`, 1, 1)
    ON CONFLICT (`list`, `organization_id`) DO UPDATE SET `total` = `total` + 1, `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `run_tasks_count_delete` AFTER DELETE ON `run_tasks` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1, `version` = `version` + 1 WHERE `list` = 'run-tasks' AND `organization_id` = old.`organization_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `run_tasks_count_reorder` AFTER UPDATE OF `created_at` ON `run_tasks` BEGIN
  UPDATE `list_counts` SET `version` = `version` + 1 WHERE `list` = 'run-tasks' AND `organization_id` = new.`organization_id`;
END;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) SELECT 'run-tasks', `organization_id`, count(*), 0 FROM `run_tasks` GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER `organization_memberships_count_insert` AFTER INSERT ON `organization_memberships` BEGIN
  INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) VALUES ('memberships:' || new.`status`, new.`organization_id`, 1, 1)
    ON CONFLICT (`list`, `organization_id`) DO UPDATE SET `total` = `total` + 1, `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `organization_memberships_count_delete` AFTER DELETE ON `organization_memberships` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1, `version` = `version` + 1 WHERE `list` = 'memberships:' || old.`status` AND `organization_id` = old.`organization_id`;
END;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) SELECT 'memberships:' || `status`, `organization_id`, count(*), 0 FROM `organization_memberships` GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER `organization_memberships_count_status` AFTER UPDATE OF `status` ON `organization_memberships` WHEN old.`status` <> new.`status` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1, `version` = `version` + 1 WHERE `list` = 'memberships:' || old.`status` AND `organization_id` = old.`organization_id`;
  INSERT INTO `list_counts` (`list`, `organization_id`, `total`, `version`) VALUES ('memberships:' || new.`status`, new.`organization_id`, 1, 1)
    ON CONFLICT (`list`, `organization_id`) DO UPDATE SET `total` = `total` + 1, `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `workspace_names` USING fts5(`name`, content='workspaces', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `workspace_names_insert` AFTER INSERT ON `workspaces` BEGIN
  INSERT INTO `workspace_names` (`rowid`, `name`) VALUES (new.`rowid`, new.`name`);
END;
--> statement-breakpoint
CREATE TRIGGER `workspace_names_delete` AFTER DELETE ON `workspaces` BEGIN
  INSERT INTO `workspace_names` (`workspace_names`, `rowid`, `name`) VALUES ('delete', old.`rowid`, old.`name`);
END;
--> statement-breakpoint
CREATE TRIGGER `workspace_names_rename` AFTER UPDATE OF `name` ON `workspaces` BEGIN
  INSERT INTO `workspace_names` (`workspace_names`, `rowid`, `name`) VALUES ('delete', old.`rowid`, old.`name`);
  INSERT INTO `workspace_names` (`rowid`, `name`) VALUES (new.`rowid`, new.`name`);
END;
--> statement-breakpoint
INSERT INTO `workspace_names` (`workspace_names`) VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE `team_names` USING fts5(`name`, content='teams', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `team_names_insert` AFTER INSERT ON `teams` BEGIN
  INSERT INTO `team_names` (`rowid`, `name`) VALUES (new.`rowid`, new.`name`);
END;
--> statement-breakpoint
CREATE TRIGGER `team_names_delete` AFTER DELETE ON `teams` BEGIN
  INSERT INTO `team_names` (`team_names`, `rowid`, `name`) VALUES ('delete', old.`rowid`, old.`name`);
END;
--> statement-breakpoint
CREATE TRIGGER `team_names_rename` AFTER UPDATE OF `name` ON `teams` BEGIN
  INSERT INTO `team_names` (`team_names`, `rowid`, `name`) VALUES ('delete', old.`rowid`, old.`name`);
  INSERT INTO `team_names` (`rowid`, `name`) VALUES (new.`rowid`, new.`name`);
END;
--> statement-breakpoint
INSERT INTO `team_names` (`team_names`) VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE `user_names` USING fts5(`username`, `email`, content='users', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `user_names_insert` AFTER INSERT ON `users` BEGIN
  INSERT INTO `user_names` (`rowid`, `username`, `email`) VALUES (new.`rowid`, new.`username`, new.`email`);
END;
--> statement-breakpoint
CREATE TRIGGER `user_names_delete` AFTER DELETE ON `users` BEGIN
  INSERT INTO `user_names` (`user_names`, `rowid`, `username`, `email`) VALUES ('delete', old.`rowid`, old.`username`, old.`email`);
END;
--> statement-breakpoint
CREATE TRIGGER `user_names_rename` AFTER UPDATE OF `username`, `email` ON `users` BEGIN
  INSERT INTO `user_names` (`user_names`, `rowid`, `username`, `email`) VALUES ('delete', old.`rowid`, old.`username`, old.`email`);
  INSERT INTO `user_names` (`rowid`, `username`, `email`) VALUES (new.`rowid`, new.`username`, new.`email`);
END;
--> statement-breakpoint
INSERT INTO `user_names` (`user_names`) VALUES ('rebuild');
