package dev.cosid.cli;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import me.ahoo.cosid.machine.AbstractMachineIdDistributor;
import me.ahoo.cosid.machine.ClockBackwardsSynchronizer;
import me.ahoo.cosid.machine.InstanceId;
import me.ahoo.cosid.machine.MachineIdLostException;
import me.ahoo.cosid.machine.MachineState;
import me.ahoo.cosid.machine.MachineStateStorage;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * CosId 2.x's ZooKeeper machine-id distributor as a test double that writes what the real one writes.
 *
 * <p>No version of {@code me.ahoo.cosid:cosid-zookeeper} is served by the package registry this build
 * reaches, so this class stands in for {@code ZookeeperMachineIdDistributor}: it extends CosId's own
 * {@link AbstractMachineIdDistributor} and keeps CosId 2.13.3's tree: the counter
 * {@code /cosid/{ns}/__counter} (an int, as Curator's {@code DistributedAtomicInteger} stores it),
 * {@code /cosid/{ns}/__itc_idx/{instanceId}} holding {@code machineId|lastStamp} while an instance runs, and
 * {@code /cosid/{ns}/__revert/{machineId}} holding the same once it stopped cleanly.
 */
final class CosIdZooKeeperMachineTree extends AbstractMachineIdDistributor {

    private final CuratorFramework client;

    CosIdZooKeeperMachineTree(CuratorFramework client, MachineStateStorage storage) {
        super(storage, ClockBackwardsSynchronizer.DEFAULT);
        this.client = client;
    }

    private static String instancePath(String namespace, String instanceId) {
        return "/cosid/" + namespace + "/__itc_idx/" + instanceId;
    }

    private static String revertPath(String namespace) {
        return "/cosid/" + namespace + "/__revert";
    }

    @Override
    protected MachineState distributeRemote(String namespace, int machineBit, InstanceId instanceId, Duration safeGuard) {
        try {
            String instancePath = instancePath(namespace, instanceId.getInstanceId());
            if (client.checkExists().forPath(instancePath) != null) {
                return MachineState.of(new String(client.getData().forPath(instancePath), StandardCharsets.UTF_8));
            }
            String reverts = revertPath(namespace);
            if (client.checkExists().forPath(reverts) != null) {
                List<String> machines = client.getChildren().forPath(reverts);
                for (String machine : machines) {
                    String path = reverts + "/" + machine;
                    MachineState reverted = MachineState.of(new String(client.getData().forPath(path), StandardCharsets.UTF_8));
                    try {
                        client.delete().forPath(path);
                    } catch (KeeperException.NoNodeException takenByAnother) {
                        continue;
                    }
                    write(instancePath, reverted);
                    return reverted;
                }
            }
            MachineState state = MachineState.of(nextMachineId(namespace));
            write(instancePath, state);
            return state;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Increments the counter by compare-and-set on its version, as the atomic integer does. */
    private int nextMachineId(String namespace) throws Exception {
        String counter = "/cosid/" + namespace + "/__counter";
        while (true) {
            Stat stat = new Stat();
            byte[] current;
            try {
                current = client.getData().storingStatIn(stat).forPath(counter);
            } catch (KeeperException.NoNodeException absent) {
                try {
                    client.create().creatingParentsIfNeeded().forPath(counter, ByteBuffer.allocate(4).putInt(1).array());
                    return 0;
                } catch (KeeperException.NodeExistsException raced) {
                    continue;
                }
            }
            int value = ByteBuffer.wrap(current).getInt();
            try {
                client.setData().withVersion(stat.getVersion()).forPath(counter, ByteBuffer.allocate(4).putInt(value + 1).array());
                return value;
            } catch (KeeperException.BadVersionException raced) {
                // another instance took this value; read again
            }
        }
    }

    @Override
    protected void revertRemote(String namespace, InstanceId instanceId, MachineState state) {
        try {
            String instancePath = instancePath(namespace, instanceId.getInstanceId());
            if (instanceId.isStable()) {
                write(instancePath, state);
                return;
            }
            client.delete().forPath(instancePath);
            write(revertPath(namespace) + "/" + state.getMachineId(), state);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected void guardRemote(String namespace, InstanceId instanceId, MachineState state, Duration safeGuard) {
        try {
            client.setData().forPath(instancePath(namespace, instanceId.getInstanceId()),
                    state.toStateString().getBytes(StandardCharsets.UTF_8));
        } catch (KeeperException.NoNodeException lost) {
            throw new MachineIdLostException(namespace, instanceId, state);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void write(String path, MachineState state) throws Exception {
        client.create().orSetData().creatingParentsIfNeeded().forPath(path, state.toStateString().getBytes(StandardCharsets.UTF_8));
    }
}
