import { version } from '../package.json';

/** This package's version, as published (the build inlines it). */
export const CLI_VERSION: string = version;
