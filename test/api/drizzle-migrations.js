// Two Drizzle migrations as drizzle-kit writes them (meta/_journal.json and
// one .sql file each), bundled the way an app imports them: used by
// ./orm-roundtrip.js in Node (also written out as a migrations folder) and
// in the consumer's Vite app.
export const journal = {
  version: '7',
  dialect: 'sqlite',
  entries: [
    { idx: 0, version: '6', when: 1700000000000, tag: '0000_init', breakpoints: true },
    { idx: 1, version: '6', when: 1700000100000, tag: '0001_isbn', breakpoints: true },
  ],
};

export const migrations = {
  '0000_init': 'CREATE TABLE `authors` (\n\t`id` integer PRIMARY KEY NOT NULL,\n\t`name` text NOT NULL\n);\n--> statement-breakpoint\n' +
    'CREATE TABLE `books` (\n\t`id` integer PRIMARY KEY NOT NULL,\n\t`author_id` integer NOT NULL REFERENCES `authors`(`id`),\n\t`title` text NOT NULL\n);\n',
  '0001_isbn': 'ALTER TABLE `books` ADD `isbn` text;\n--> statement-breakpoint\nCREATE INDEX `books_title` ON `books` (`title`);\n',
};
