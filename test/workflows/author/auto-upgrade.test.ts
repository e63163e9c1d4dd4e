import { autoUpgradeOptions } from '../../../workflows/author/auto-upgrade';

describe('autoUpgradeOptions', () => {
  it('declares auto-upgrade when the run starts on a versioned worker', () => {
    expect(autoUpgradeOptions({ deploymentName: 'amsflow', buildId: 'b1' })).toEqual({
      versioningBehavior: 'AUTO_UPGRADE',
    });
  });

  it('declares nothing on an unversioned worker, which the server would refuse', () => {
    expect(autoUpgradeOptions(undefined)).toEqual({});
  });
});
