export * from './accounts';
export * from './clients';
export * from './customers';
export * from './events';
export * from './opcos';
export * from './platform-settings';
export * from './projects';
export * from './staff-login-attempts';
