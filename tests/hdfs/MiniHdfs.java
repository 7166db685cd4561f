// A real HDFS in one JVM for the tests: Hadoop's MiniDFSCluster (a NameNode and two DataNodes)
// bound to 127.0.0.1, its data under the folder given as the first argument. It prints
// "READY <rpc port> <http port>" once active, then takes commands on stdin, one per line:
// "restart" restarts the NameNode on the same ports and prints "RESTARTED"; end of input shuts
// the cluster down. Run as a single source file: java -cp <hadoop jars> MiniHdfs.java DIR
import java.io.BufferedReader;
import java.io.InputStreamReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

public class MiniHdfs {
    public static void main(String[] args) throws Exception {
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, args[0]);
        conf.set("dfs.namenode.rpc-address", "127.0.0.1:0");
        conf.set("dfs.namenode.http-address", "127.0.0.1:0");
        conf.set("dfs.datanode.address", "127.0.0.1:0");
        conf.set("dfs.datanode.http.address", "127.0.0.1:0");
        conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
        conf.set("dfs.datanode.hostname", "127.0.0.1");
        conf.set("dfs.webhdfs.enabled", "true");
        conf.setBoolean("dfs.permissions.enabled", false);
        conf.setInt("dfs.replication", 2);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf)
                .numDataNodes(2)
                .nameNodePort(0)
                .nameNodeHttpPort(0)
                .format(true)
                .build();
        cluster.waitActive();
        int rpc = cluster.getNameNodePort();
        int http = cluster.getNameNode().getHttpAddress().getPort();
        System.out.println("READY " + rpc + " " + http);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().equals("restart")) {
                cluster.restartNameNode(true);
                cluster.waitActive();
                System.out.println("RESTARTED " + cluster.getNameNodePort());
                System.out.flush();
            }
        }
        cluster.shutdown();
    }
}
