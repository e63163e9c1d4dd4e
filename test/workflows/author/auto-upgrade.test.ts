import { autoUpgradeOptions } from '../../../workflows/author/auto-upgrade';

describe('autoUpgradeOptions', () => {
  it('declares auto-upgrade when the run starts on a versioned worker (a named deployment)', () => {
    expect(autoUpgradeOptions({ deploymentName: 'amsflow', buildId: 'b1' })).toEqual({
      versioningBehavior: 'AUTO_UPGRADE',
    });
  });

  it('declares nothing on an unversioned worker, which the server would refuse', () => {
    // An unversioned worker's task carries its build id and no deployment name.
    expect(autoUpgradeOptions({ deploymentName: '', buildId: 'bundle-1' })).toEqual({});
    expect(autoUpgradeOptions(undefined)).toEqual({});
  });
});
