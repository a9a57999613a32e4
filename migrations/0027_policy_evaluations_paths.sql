ALTER TABLE `policy_evaluations` ADD `policy_kind` text DEFAULT 'opa' NOT NULL;--> statement-breakpoint
ALTER TABLE `policy_set_outcomes` ADD `error` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `policy_paths` text DEFAULT '[]' NOT NULL;